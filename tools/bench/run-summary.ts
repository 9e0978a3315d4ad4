/** What the bench prints at the end of a run: per step, e2e latency beside the counts, and where a hop's milliseconds go. */
import type { BenchResults, StepResult } from './bench-results';
import { pathFloorLine } from './benchmarks-md-hops';
import { speedCheckLine, stepName } from './benchmarks-md-work';
import { FewTraces } from './step-traces';

const f1 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1));
const f2 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(2));
const f0 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));

/** Columns padded to their widest cell: the first left-aligned, the rest right-aligned. */
export function aligned(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** One row per step: e2e p50 and p99 (ms) beside the counts (wake-ups included), CPU per order and the speed check during the step. */
export function stepSummaryLines(steps: readonly StepResult[]): string[] {
  return aligned([
    [
      'step',
      'e2e p50 ms',
      'e2e p99 ms',
      'Kafka requests',
      'commits',
      'statements',
      'wake-ups',
      'CPU ms',
      'check ms',
    ],
    ...steps.map((s) => [
      stepName(s),
      f1(s.e2e.p50),
      f1(s.e2e.p99),
      f2(s.counts?.kafkaRequests.total),
      f2(s.counts?.dbCommits.total),
      f2(s.counts?.dbStatements.total),
      f0(s.wakeupsPerOrder?.total),
      f2(s.cpuMsPerOrder?.total),
      f1(s.speedCheckMs),
    ]),
  ]);
}

/** A step's hops, p50 of each part in ms, and the path to the terminal event. */
export function hopLines(step: StepResult): string[] {
  const b = step.hops;
  if (b === undefined) return [];
  const head = `per hop at ${stepName(step)}, p50 ms, from ${b.traces} sampled orders' traces`;
  if (b.hops.length === 0) return [`${head}: no hop in them`];
  const lines = [
    `${head}${b.traces < FewTraces ? ` (fewer than ${FewTraces}: rough)` : ''}:`,
    ...aligned([
      ['hop', 'n', 'relay wait', 'produce', 'fetch', 'transaction'],
      ...b.hops.map((h) => [
        h.hop,
        String(h.n),
        f1(h.relayWait.p50),
        f1(h.produce.p50),
        f1(h.fetch.p50),
        f1(h.transaction.p50),
      ]),
    ]).map((line) => `  ${line}`),
  ];
  const p = b.path;
  if (p)
    lines.push(
      `  path from the request to the terminal event's send (n=${p.n}, ${p.hops} hops), summed per order: request ${f1(p.request.p50)}, relay wait ${f1(p.relayWait.p50)}, produce ${f1(p.produce.p50)}, fetch ${f1(p.fetch.p50)}, transaction ${f1(p.transaction.p50)}; total ${f1(p.total.p50)} (e2e p50 ${f1(step.e2e.p50)})`,
    );
  return lines;
}

/** The end-of-run summary: the steps' table, then each step's hops (or why there are none). */
export function runSummaryLines(results: BenchResults): string[] {
  if (results.steps.length === 0) return [];
  const withHops = results.steps.filter((s) => s.hops !== undefined);
  return [
    'per step, per order:',
    ...stepSummaryLines(results.steps).map((line) => `  ${line}`),
    ...[speedCheckLine(results)].filter((line) => line !== ''),
    ...(results.hopsUnavailable !== undefined
      ? [`per-hop breakdown unavailable: ${results.hopsUnavailable}`]
      : withHops.flatMap(hopLines)),
    ...[pathFloorLine(results)].filter((line) => line !== undefined),
  ];
}
