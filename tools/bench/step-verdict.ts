import { totalLag } from '@pipeline/load';
import type { LoadgenReport } from '../loadgen/report';

/** When a step counts as kept up with (issue 6: lag does not grow and e2e p99 stays within 1 s). */
export const SustainableLimits = {
  maxE2eP99Ms: 1000,
  /** Placed orders/s may fall this far below the offered rate (open-model jitter, start-up). */
  minAchievedRatio: 0.95,
} as const;

export interface StepVerdict {
  readonly sustainable: boolean;
  readonly reasons: readonly string[];
}

/**
 * Lag grows when, over the load period, the mean lag of its last quarter exceeds twice that of its
 * second quarter and one second of offered orders: a pipeline that keeps up holds a flat lag.
 */
export function lagGrows(report: LoadgenReport, rate: number): boolean {
  const during = report.lag.samples.filter((s) => s.t <= report.durationSeconds);
  if (during.length < 4) return false;
  const quarter = (k: number): number[] =>
    during
      .filter((s) => s.t > (report.durationSeconds * k) / 4 && s.t <= (report.durationSeconds * (k + 1)) / 4)
      .map(totalLag);
  const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const early = mean(quarter(1));
  const late = mean(quarter(3));
  return late > 2 * early && late > rate;
}

export function judgeStep(report: LoadgenReport, rate: number): StepVerdict {
  const reasons: string[] = [];
  const t = report.totals;
  if (t.lost > 0) reasons.push(`${t.lost} lost`);
  if (t.duplicated > 0) reasons.push(`${t.duplicated} duplicated`);
  const httpErrors = Object.values(t.httpErrors).reduce((a, b) => a + b, 0);
  if (httpErrors > 0 || t.dropped > 0) reasons.push(`${httpErrors} HTTP errors, ${t.dropped} dropped`);
  if (report.achievedRate < SustainableLimits.minAchievedRatio * rate)
    reasons.push(`placed ${report.achievedRate.toFixed(1)}/s of ${rate}/s offered`);
  if (report.latency.e2e.p99 > SustainableLimits.maxE2eP99Ms)
    reasons.push(`e2e p99 ${report.latency.e2e.p99.toFixed(0)} ms > ${SustainableLimits.maxE2eP99Ms} ms`);
  if (lagGrows(report, rate)) reasons.push('consumer lag grows');
  return { sustainable: reasons.length === 0, reasons };
}
