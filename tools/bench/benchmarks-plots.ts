import { lineChart } from '@pipeline/load';
import type { BenchResults, StepResult } from './bench-results';
import { rampSteps, rateLabel } from './benchmarks-md-work';
import { stackedBarChart, type StackedBarsOptions } from './stacked-bar-chart';
import { SustainableLimits } from './step-verdict';

const Palette = [
  '#1f77b4',
  '#2ca02c',
  '#d62728',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];

type Series = Parameters<typeof lineChart>[0]['series'][number];

/** Wide enough for every legend entry (lineChart sets them 150 px apart on one line). */
const chartWidth = (series: number): number => Math.max(860, 100 + series * 150);

/** The percentiles of the latency-by-rate plot, at x = their "nines": -log10(1 - fraction). */
export const LatencyPercentiles = [
  { key: 'p50', fraction: 0.5 },
  { key: 'p90', fraction: 0.9 },
  { key: 'p99', fraction: 0.99 },
  { key: 'p999', fraction: 0.999 },
] as const;

export const nines = (fraction: number): number => Math.round(-Math.log10(1 - fraction) * 1000) / 1000;

/**
 * One line per step (warm-up left out): its e2e p50, p90, p99 and p99.9 on a log axis of the
 * fraction of orders (1 = p90, 2 = p99, 3 = p99.9), latencies above `capMs` drawn at it.
 */
export function latencyByRateSeries(steps: readonly StepResult[], capMs: number): Series[] {
  return steps
    .filter((s) => s.label !== 'warm-up' && s.e2e.count > 0)
    .map((s, i) => ({
      name: rateLabel(s),
      color: Palette[i % Palette.length]!,
      points: LatencyPercentiles.map(({ key, fraction }): [number, number] => [
        nines(fraction),
        Math.min(s.e2e[key], capMs),
      ]),
    }));
}

/** The parts of the path from the request to the terminal event's send, stacked in this order. */
export const PathParts = [
  { key: 'request', name: 'request', color: Palette[0]! },
  { key: 'relayWait', name: 'relay wait', color: Palette[1]! },
  { key: 'produce', name: 'produce', color: Palette[2]! },
  { key: 'fetch', name: 'fetch', color: Palette[3]! },
  { key: 'transaction', name: 'transaction', color: Palette[4]! },
] as const;

/**
 * A bar per step with traces (warm-up left out), by offered rate: the medians of the path's parts
 * stacked, and the loadgen's e2e p50 across it (what is left above the bar is its own send delay
 * and its fetch of the terminal event).
 */
export function hopsByRateBars(steps: readonly StepResult[]): StackedBarsOptions['bars'] {
  return steps
    .filter((s) => s.label !== 'warm-up' && s.hops?.path !== undefined)
    .sort((a, b) => a.offered - b.offered)
    .map((s) => ({
      label: rateLabel(s),
      values: PathParts.map(({ key }) => s.hops!.path![key].p50),
      mark: s.e2e.p50,
    }));
}

/** The plots of the results section, by file name (written to docs/benchmarks/). */
export function plots(results: BenchResults): Record<string, string> {
  const steps = rampSteps(results.steps);
  const throughput = lineChart({
    title: 'Offered rate vs what the pipeline delivered',
    xLabel: 'offered orders/s',
    yLabel: 'orders/s',
    series: [
      { name: 'offered', color: '#999', points: steps.map((s) => [s.offered, s.offered]) },
      { name: 'placed (HTTP 202)', color: '#1f77b4', points: steps.map((s) => [s.offered, s.achieved]) },
      {
        name: 'terminal events',
        color: '#2ca02c',
        points: steps.map((s) => [s.offered, s.terminalPerSecond]),
      },
    ],
  });
  const latency = lineChart({
    title: 'End-to-end latency (POST to order.confirmed/cancelled) per step',
    xLabel: 'offered orders/s',
    yLabel: 'ms',
    series: [
      { name: 'p50', color: '#2ca02c', points: steps.map((s) => [s.offered, s.e2e.p50]) },
      { name: 'p99', color: '#ff7f0e', points: steps.map((s) => [s.offered, Math.min(s.e2e.p99, 5000)]) },
    ],
  });
  const cpu = lineChart({
    title: 'CPU ms per order, per process, per step',
    xLabel: 'offered orders/s',
    yLabel: 'CPU ms / order',
    series: Object.keys(steps[0]?.cpu?.byGroup ?? {}).map((name, i) => ({
      name,
      color: Palette[i % 8]!,
      points: steps
        .filter((s) => s.cpu && s.ordersInCpuWindow)
        .map((s) => [s.offered, ((s.cpu!.byGroup[name] ?? 0) * 1000) / s.ordersInCpuWindow!]),
    })),
  });
  const byRate = latencyByRateSeries(results.steps, SustainableLimits.maxE2eP99Ms);
  const latencyByRate = lineChart({
    title: `End-to-end latency by percentile, one line per step (capped at ${SustainableLimits.maxE2eP99Ms} ms)`,
    xLabel: 'percentile as nines (log scale): 0.3 = p50, 1 = p90, 2 = p99, 3 = p99.9',
    yLabel: 'e2e ms',
    series: byRate,
    width: chartWidth(byRate.length),
  });
  const hops = stackedBarChart({
    title: "Where an order's milliseconds go: the path's parts from traces (medians), and e2e p50",
    yLabel: 'ms',
    parts: PathParts,
    bars: hopsByRateBars(results.steps),
    markName: 'e2e p50',
  });
  return {
    'throughput.svg': throughput,
    'latency.svg': latency,
    'cpu-per-order.svg': cpu,
    'latency-by-rate.svg': latencyByRate,
    'hops-by-rate.svg': hops,
  };
}
