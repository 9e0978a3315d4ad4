import type { LagSample } from '../lag-monitor';
import type { LoadConfig } from '../load-config';
import { formatCpu, type LoadgenCpu } from '../run/cpu-account';
import type { PercentileSummary } from '../run/latency-stats';
import type { OutcomeTotals } from '../run/outcome-tracker';
import type { SecondPoint } from '../run/timeline';
import { formatVerdict, type LoadVerdict } from './verdict';

export interface EmailCheck {
  readonly checked: number;
  readonly missing: number;
  readonly duplicated: number;
  readonly error?: string;
}

/** A run ended by its signal: no drain, so orders without a terminal event are unfinished, not lost. */
export interface LoadStop {
  /** Seconds of load before the stop. */
  readonly afterSeconds: number;
  /** Placed orders without a terminal event at the stop (the report's `totals.lost` is then 0). */
  readonly unfinished: number;
}

export interface LoadReport {
  readonly startedAt: string;
  readonly config: LoadConfig;
  readonly consumerGroup: string;
  readonly durationSeconds: number;
  readonly achievedRate: number;
  readonly totals: OutcomeTotals;
  readonly latency: {
    readonly http: PercentileSummary;
    readonly e2e: PercentileSummary;
    readonly e2eConfirmed: PercentileSummary;
    readonly e2eCancelled: PercentileSummary;
  };
  readonly timeline: readonly SecondPoint[];
  readonly lag: {
    readonly maxByGroup: Readonly<Record<string, number>>;
    readonly samples: readonly LagSample[];
  };
  readonly emails?: EmailCheck;
  /** What the load generator itself cost and how late it sent: is it the limit? */
  readonly generator: {
    readonly cpu: LoadgenCpu;
    readonly sendDelay: PercentileSummary;
  };
  readonly stopped?: LoadStop;
  /** The one verdict the CLI and the console show (verdict.ts). */
  readonly verdict: LoadVerdict;
}

const ms = (s: PercentileSummary): string =>
  `p50 ${s.p50.toFixed(1)}  p90 ${s.p90.toFixed(1)}  p99 ${s.p99.toFixed(1)}  p99.9 ${s.p999.toFixed(1)}  max ${s.max.toFixed(1)} ms (n=${s.count})`;

export function renderSummary(report: LoadReport): string[] {
  const { totals: t, latency } = report;
  const errors = Object.entries(t.httpErrors).map(([status, n]) => `${status}: ${n}`);
  const lines = [
    `loadgen: ${report.durationSeconds.toFixed(1)} s of load, achieved ${report.achievedRate.toFixed(1)} placed orders/s`,
    `  offered ${t.offered}, placed (202) ${t.placed}, dropped (max in flight) ${t.dropped}, HTTP errors ${errors.length ? errors.join(', ') : 'none'}`,
    `  traced: ${(report.config.traceRatio * 100).toFixed(report.config.traceRatio < 0.01 ? 2 : 0)} % of the orders (--trace-ratio ${report.config.traceRatio})`,
    `  terminal events: confirmed ${t.terminalEvents['order.confirmed']}, cancelled ${t.terminalEvents['order.cancelled']}; unexpected outcome ${t.unexpectedOutcome}`,
    report.stopped
      ? `  STOPPED after ${report.stopped.afterSeconds.toFixed(1)} s: UNFINISHED ${report.stopped.unfinished}   DUPLICATED ${t.duplicated}   (unfinished = no terminal event yet at the stop; no drain, so none counts as lost)`
      : `  LOST ${t.lost}   DUPLICATED ${t.duplicated}   (lost = no terminal event after the drain)`,
    `  HTTP latency:       ${ms(latency.http)}`,
    `  end-to-end latency: ${ms(latency.e2e)}`,
    `    confirmed:        ${ms(latency.e2eConfirmed)}`,
    `    cancelled:        ${ms(latency.e2eCancelled)}`,
    `  max consumer lag:   ${
      Object.entries(report.lag.maxByGroup)
        .map(([g, n]) => `${g} ${n}`)
        .join(', ') || 'not read'
    }`,
    `  loadgen itself:     ${formatCpu(report.generator.cpu)}`,
    `  loadgen send delay: ${ms(report.generator.sendDelay)}`,
  ];
  if (report.emails) {
    const e = report.emails;
    lines.push(
      e.error
        ? `  emails: not checked (${e.error})`
        : `  emails: ${e.checked} orders checked, missing ${e.missing}, duplicated ${e.duplicated}`,
    );
  }
  lines.push(`  ${formatVerdict(report.verdict)}`);
  return lines;
}
