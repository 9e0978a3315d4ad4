import { describe, expect, it } from 'vitest';
import type { LoadReport, PercentileSummary, SecondPoint } from '@pipeline/load';
import { judgeStep, lagGrows, slowOnlyAtStart } from './step-verdict';

const latency = (p99: number): PercentileSummary => ({
  count: 100,
  p50: 10,
  p90: 20,
  p99,
  p999: p99,
  max: p99,
  mean: 12,
});

const report = (over: {
  achievedRate?: number;
  p99?: number;
  lost?: number;
  duplicated?: number;
  lag?: number[];
  /** Per second: the e2e p99 of the orders that ended in it. */
  secondsP99?: number[];
}): LoadReport =>
  ({
    durationSeconds: 20,
    achievedRate: over.achievedRate ?? 100,
    totals: {
      offered: 2000,
      placed: 2000,
      dropped: 0,
      httpErrors: {},
      lost: over.lost ?? 0,
      duplicated: over.duplicated ?? 0,
    },
    latency: { e2e: latency(over.p99 ?? 200) },
    timeline: (over.secondsP99 ?? []).map((p99, t): SecondPoint => ({
      t,
      offered: 100,
      placed: 100,
      errors: 0,
      terminal: 100,
      http: { p50: 5, p99: 10, max: 20 },
      e2e: { p50: 50, p99, max: p99 },
    })),
    lag: {
      maxByGroup: {},
      samples: (over.lag ?? []).map((lag, i) => ({ t: i + 1, lag: { g: lag } })),
    },
  }) as unknown as LoadReport;

describe('judgeStep', () => {
  it('keeps up: full rate, p99 within 1 s, flat lag, nothing lost or duplicated', () => {
    expect(judgeStep(report({ lag: Array(20).fill(30) }), 100)).toEqual({ sustainable: true, reasons: [] });
  });

  it('names every reason a step is not sustainable', () => {
    const verdict = judgeStep(report({ achievedRate: 80, p99: 1500, lost: 1, duplicated: 2 }), 100);
    expect(verdict.sustainable).toBe(false);
    expect(verdict.reasons).toEqual([
      '1 lost',
      '2 duplicated',
      'placed 80.0/s of 100/s offered',
      'e2e p99 1500 ms > 1000 ms',
    ]);
  });

  it('sees growing lag, but not noise around a small level', () => {
    const growing = Array.from({ length: 20 }, (_, i) => i * 40);
    expect(lagGrows(report({ lag: growing }), 100)).toBe(true);
    expect(
      lagGrows(report({ lag: [5, 80, 3, 9, 60, 2, 7, 90, 4, 6, 70, 1, 8, 50, 3, 95, 2, 99, 4, 90] }), 100),
    ).toBe(false);
    // A slow step: a few records in flight, doubling by chance.
    const slow = [0, 1, 0, 2, 1, 0, 1, 2, 0, 1, 3, 6, 4, 8, 5, 9, 6, 4, 8, 6];
    expect(lagGrows(report({ lag: slow }), 2)).toBe(false);
    expect(lagGrows(report({ lag: slow.map((l) => l * 5) }), 2)).toBe(true);
  });

  it('does not flunk a step only because of its first seconds (cold start), and says so', () => {
    const coldStart = [2500, 1800, 1200, ...Array<number>(17).fill(300)];
    const verdict = judgeStep(report({ p99: 1500, secondsP99: coldStart }), 100);
    expect(verdict.sustainable).toBe(true);
    expect(verdict.notes?.[0]).toMatch(/only in its first 3 s \(cold start\)/);
  });

  it('still flunks a step that is slow after its first seconds', () => {
    const late = [2500, 300, 300, ...Array<number>(16).fill(300), 1300];
    expect(judgeStep(report({ p99: 1500, secondsP99: late }), 100).reasons).toEqual([
      'e2e p99 1500 ms > 1000 ms',
    ]);
    expect(slowOnlyAtStart(report({ p99: 1500, secondsP99: Array<number>(20).fill(1200) }), 1000)).toBe(
      false,
    );
  });
});
