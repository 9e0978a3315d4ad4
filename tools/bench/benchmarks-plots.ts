import { lineChart } from '@pipeline/load';
import type { BenchResults } from './bench-results';

/** The three plots of the results section, by file name (written to docs/benchmarks/). */
export function plots(results: BenchResults): Record<string, string> {
  const steps = results.steps.filter((s) => s.label === 'step');
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
      color: ['#1f77b4', '#2ca02c', '#d62728', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'][i % 8]!,
      points: steps
        .filter((s) => s.cpu && s.ordersInCpuWindow)
        .map((s) => [s.offered, ((s.cpu!.byGroup[name] ?? 0) * 1000) / s.ordersInCpuWindow!]),
    })),
  });
  return { 'throughput.svg': throughput, 'latency.svg': latency, 'cpu-per-order.svg': cpu };
}
