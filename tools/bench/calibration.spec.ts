import { describe, expect, it } from 'vitest';
import { normalise, perThousandTps, ReferenceRun } from './calibration';
import type { PgbenchResult } from './perf-output';

const pgbench = (clients: number, tps: number): PgbenchResult =>
  ({ clients, tps, latencyAvgMs: 1 }) as PgbenchResult;

describe('normalise', () => {
  it('divides the sustainable rate by the best pgbench tps of the run, per 1,000', () => {
    expect(normalise(300, [pgbench(1, 1590), pgbench(4, 3067), pgbench(8, 2769)])).toEqual({
      pgbenchTps: 3067,
      pgbenchClients: 4,
      ordersPerSecondPer1000Tps: 97.8,
    });
  });

  it('gives the reference run about 98 orders/s per 1,000 tps', () => {
    expect(perThousandTps(ReferenceRun.sustainable, ReferenceRun.pgbenchTps)).toBeCloseTo(98, 0);
  });

  it('has nothing to normalise by without pgbench', () => {
    expect(normalise(300, undefined)).toBeUndefined();
    expect(normalise(300, [])).toBeUndefined();
  });
});
