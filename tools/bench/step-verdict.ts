import { totalLag, type LoadReport } from '@pipeline/load';

/** When a step counts as kept up with (issue 6: lag does not grow and e2e p99 stays within 1 s). */
export const SustainableLimits = {
  maxE2eP99Ms: 1000,
  /** Placed orders/s may fall this far below the offered rate (open-model jitter, start-up). */
  minAchievedRatio: 0.95,
  /**
   * Lag (records over every group, about ten per order) below this never counts as growing: at
   * 2-5 orders/s, one order in flight at the wrong moment would otherwise double a quarter's mean.
   */
  minGrowingLagRecords: 20,
} as const;

export interface StepVerdict {
  readonly sustainable: boolean;
  readonly reasons: readonly string[];
  /** What the verdict let pass and why (a slow cold start), for the results to say. */
  readonly notes?: readonly string[];
}

/**
 * Lag grows when, over the load period, the mean lag of its last quarter exceeds twice that of its
 * second quarter and one second of offered orders: a pipeline that keeps up holds a flat lag.
 */
export function lagGrows(report: LoadReport, rate: number): boolean {
  const during = report.lag.samples.filter((s) => s.t <= report.durationSeconds);
  if (during.length < 4) return false;
  const quarter = (k: number): number[] =>
    during
      .filter((s) => s.t > (report.durationSeconds * k) / 4 && s.t <= (report.durationSeconds * (k + 1)) / 4)
      .map(totalLag);
  const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const early = mean(quarter(1));
  const late = mean(quarter(3));
  return late > 2 * early && late > Math.max(rate, SustainableLimits.minGrowingLagRecords);
}

/**
 * Seconds at a step's start whose latencies may be left out of the p99 rule: the loadgen's own
 * consumer joins its group and the first orders meet cold connections and caches.
 */
export const coldStartSeconds = (durationSeconds: number): number =>
  Math.min(3, Math.floor(durationSeconds / 5));

/**
 * True when the e2e p99 is over the limit only because of the first seconds: after them, no
 * second's p99 exceeds it (a stricter test than the p99 over the rest, since each second's p99 is
 * at least as high as its share of the whole).
 */
export function slowOnlyAtStart(report: LoadReport, limitMs: number): boolean {
  const grace = coldStartSeconds(report.durationSeconds);
  const rest = report.timeline.filter((s) => s.t >= grace && s.terminal > 0);
  const early = report.timeline.filter((s) => s.t < grace && s.terminal > 0);
  return (
    grace > 0 &&
    rest.length > 0 &&
    early.some((s) => s.e2e.p99 > limitMs) &&
    rest.every((s) => s.e2e.p99 <= limitMs)
  );
}

export function judgeStep(report: LoadReport, rate: number): StepVerdict {
  const reasons: string[] = [];
  const t = report.totals;
  if (t.lost > 0) reasons.push(`${t.lost} lost`);
  if (t.duplicated > 0) reasons.push(`${t.duplicated} duplicated`);
  const httpErrors = Object.values(t.httpErrors).reduce((a, b) => a + b, 0);
  if (httpErrors > 0 || t.dropped > 0) reasons.push(`${httpErrors} HTTP errors, ${t.dropped} dropped`);
  if (report.achievedRate < SustainableLimits.minAchievedRatio * rate)
    reasons.push(`placed ${report.achievedRate.toFixed(1)}/s of ${rate}/s offered`);
  const notes: string[] = [];
  const p99 = report.latency.e2e.p99;
  if (p99 > SustainableLimits.maxE2eP99Ms) {
    if (slowOnlyAtStart(report, SustainableLimits.maxE2eP99Ms))
      notes.push(
        `e2e p99 ${p99.toFixed(0)} ms over the whole step, but over ${SustainableLimits.maxE2eP99Ms} ms only in its first ${coldStartSeconds(report.durationSeconds)} s (cold start)`,
      );
    else reasons.push(`e2e p99 ${p99.toFixed(0)} ms > ${SustainableLimits.maxE2eP99Ms} ms`);
  }
  if (lagGrows(report, rate)) reasons.push('consumer lag grows');
  return { sustainable: reasons.length === 0, reasons, ...(notes.length > 0 ? { notes } : {}) };
}
