import { describe, expect, it } from 'vitest';
import type { PercentileSummary } from '@pipeline/load';
import type { BenchResults, StepResult } from './bench-results';
import { hopsByRateBars, latencyByRateSeries, nines, plots } from './benchmarks-plots';
import type { PathSpread } from './hop-breakdown';

const e2e = (p50: number, p99: number): PercentileSummary => ({
  count: 500,
  p50,
  p90: p50 * 2,
  p99,
  p999: p99 * 3,
  max: p99 * 4,
  mean: p50,
});

const at = (p50: number) => ({ p50, p90: p50 * 2 });
const path = (fetch: number): PathSpread => ({
  n: 20,
  hops: 3,
  request: at(8),
  relayWait: at(10),
  produce: at(12),
  fetch: at(fetch),
  transaction: at(40),
  total: at(70 + fetch),
});

const step = (label: StepResult['label'], offered: number, latency: PercentileSummary, fetch?: number) =>
  ({
    label,
    offered,
    e2e: latency,
    ...(fetch !== undefined ? { hops: { traces: 20, hops: [], path: path(fetch) } } : {}),
  }) as unknown as StepResult;

const steps = [
  step('warm-up', 20, e2e(90, 300)),
  step('step', 25, e2e(60, 150), 30),
  step('step', 100, e2e(80, 400), 50),
  step('half rate', 50, e2e(70, 200)),
];

describe('the latency-by-rate plot', () => {
  it('places p50, p90, p99 and p99.9 at their nines', () => {
    expect([0.5, 0.9, 0.99, 0.999].map(nines)).toEqual([0.301, 1, 2, 3]);
  });

  it('has one line per step but the warm-up, each its e2e percentiles, capped', () => {
    const series = latencyByRateSeries(steps, 1000);
    expect(series.map((s) => s.name)).toEqual(['25/s', '100/s', '50/s (half rate)']);
    expect(series[0]!.points).toEqual([
      [0.301, 60],
      [1, 120],
      [2, 150],
      [3, 450],
    ]);
    // 100/s: p99.9 1,200 ms is drawn at the cap.
    expect(series[1]!.points.at(-1)).toEqual([3, 1000]);
  });

  it('leaves out a step that saw no terminal event', () => {
    const empty = step('step', 400, { ...e2e(0, 0), count: 0 });
    expect(latencyByRateSeries([empty], 1000)).toEqual([]);
  });
});

describe('the hops-by-rate plot', () => {
  it('stacks the path’s medians in a bar per step with traces, by rate, e2e p50 across it', () => {
    const bars = hopsByRateBars(steps);
    expect(bars).toEqual([
      { label: '25/s', values: [8, 10, 12, 30, 40], mark: 60 },
      { label: '100/s', values: [8, 10, 12, 50, 40], mark: 80 },
    ]);
  });

  it('is written with the other plots', () => {
    const results = { steps, machine: {} } as unknown as BenchResults;
    const charts = plots(results);
    expect(Object.keys(charts)).toEqual(
      expect.arrayContaining(['latency.svg', 'latency-by-rate.svg', 'hops-by-rate.svg']),
    );
    expect(charts['latency-by-rate.svg']).toContain('data-series="50/s (half rate)"');
    expect(charts['hops-by-rate.svg']!.match(/data-part="fetch"/g)).toHaveLength(2);
  });
});
