/**
 * What lets two machines' runs be compared: the sustainable rate per 1,000 pgbench one-hop
 * transactions per second measured in the same run, and the reference run to set it beside.
 */
import type { PgbenchResult } from './perf-output';

export interface Normalised {
  /** pgbench one-hop tps, best of its client counts. */
  readonly pgbenchTps: number;
  readonly pgbenchClients: number;
  /** Sustainable orders/s per 1,000 of those tps. */
  readonly ordersPerSecondPer1000Tps: number;
}

/** The first machine's full run (2026-12-01 10:18 UTC): 300 orders/s, pgbench 4 clients 3,067 tps. */
export const ReferenceRun = {
  label: 'first machine, full run, 2026-12-01 10:18 UTC',
  sustainable: 300,
  pgbenchTps: 3067,
  cpuMsPerOrder: 6.0,
} as const;

export const perThousandTps = (ordersPerSecond: number, tps: number): number =>
  tps > 0 ? Math.round((ordersPerSecond / tps) * 1000 * 10) / 10 : 0;

/** Undefined without a pgbench measurement (skipped or failed). */
export function normalise(
  sustainable: number,
  pgbench: readonly PgbenchResult[] | undefined,
): Normalised | undefined {
  const best = pgbench?.reduce<PgbenchResult | undefined>(
    (a, b) => (a === undefined || b.tps > a.tps ? b : a),
    undefined,
  );
  if (!best || best.tps <= 0) return undefined;
  return {
    pgbenchTps: Math.round(best.tps),
    pgbenchClients: best.clients,
    ordersPerSecondPer1000Tps: perThousandTps(sustainable, best.tps),
  };
}
