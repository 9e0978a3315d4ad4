import type { LoadReport } from './report';

/** Placed orders may fall this far below the offered ones (a request cut off by the run's end). */
export const MinPlacedShare = 0.97;

export interface LoadVerdict {
  /** PASS: nothing lost, duplicated or misrouted, and the offered rate achieved; STOPPED: not judged. */
  readonly result: 'PASS' | 'FAIL' | 'STOPPED';
  /** Why, in a few words each: what failed, or what held. */
  readonly reasons: readonly string[];
}

/** The one verdict of a run, from its counts: the CLI prints it, the console shows it. */
export function judge(report: Omit<LoadReport, 'verdict'>): LoadVerdict {
  const { totals: t, stopped, emails } = report;
  const offeredRate = t.offered / Math.max(report.durationSeconds, 1e-9);
  const share = t.offered === 0 ? 0 : t.placed / t.offered;
  const rate = `achieved ${report.achievedRate.toFixed(1)} of ${offeredRate.toFixed(1)} offered orders/s (${(share * 100).toFixed(1)} %, at least ${MinPlacedShare * 100} % needed)`;
  const failures = [
    ...(stopped ? [] : t.lost > 0 ? [`${t.lost} lost`] : []),
    ...(t.duplicated > 0 ? [`${t.duplicated} duplicated`] : []),
    ...(t.unexpectedOutcome > 0 ? [`${t.unexpectedOutcome} unexpected outcomes`] : []),
    ...(share < MinPlacedShare ? [rate] : []),
    ...(emails && emails.error === undefined && emails.missing + emails.duplicated > 0
      ? [`emails: ${emails.missing} missing, ${emails.duplicated} duplicated`]
      : []),
  ];
  if (stopped)
    return {
      result: 'STOPPED',
      reasons: [
        `stopped after ${stopped.afterSeconds.toFixed(1)} s, ${stopped.unfinished} orders unfinished: not judged`,
        ...failures,
      ],
    };
  if (failures.length > 0) return { result: 'FAIL', reasons: failures };
  return { result: 'PASS', reasons: ['0 lost, 0 duplicated, 0 unexpected outcomes', rate] };
}

export const formatVerdict = (verdict: LoadVerdict): string =>
  `VERDICT ${verdict.result}: ${verdict.reasons.join('; ')}`;
