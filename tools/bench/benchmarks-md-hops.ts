/** The generated section's per-hop breakdown: where an order's milliseconds go, from traces. */
import type { BenchResults, StepResult } from './bench-results';
import type { Spread } from './hop-breakdown';
import { stepName } from './benchmarks-md-work';
import { FewTraces } from './step-traces';

const f1 = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(1));
const both = (s: Spread): string => `${f1(s.p50)} / ${f1(s.p90)}`;

const traced = (results: BenchResults): StepResult[] => results.steps.filter((s) => s.hops !== undefined);

const tracesCell = (s: StepResult): string =>
  `${s.hops!.traces}${s.hops!.traces < FewTraces ? ' (few: rough)' : ''}`;

/** Per step, the medians of the path from the request to the terminal event's send, part by part. */
function pathTable(steps: readonly StepResult[]): string[] {
  const withPath = steps.filter((s) => s.hops?.path !== undefined);
  if (withPath.length === 0) return [];
  return [
    'The path from the order’s request to the send of its terminal event, each part summed over the hops on it per order (medians, ms; the total is the median of the per-order totals, so the parts need not add up to it). What e2e adds to the total is the load generator’s send delay and its own fetch of the terminal event.',
    '',
    '| step | traces | hops | request | relay wait | produce | fetch | transaction | total | e2e p50 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...withPath.map((s) => {
      const p = s.hops!.path!;
      return `| ${stepName(s)} | ${tracesCell(s)} | ${p.hops} | ${f1(p.request.p50)} | ${f1(p.relayWait.p50)} | ${f1(p.produce.p50)} | ${f1(p.fetch.p50)} | ${f1(p.transaction.p50)} | ${f1(p.total.p50)} | ${f1(s.e2e.p50)} |`;
    }),
  ];
}

/** Every hop of the steps with enough traces: p50 / p90 of its relay wait, produce, fetch and transaction. */
function hopTable(all: readonly StepResult[]): string[] {
  const steps = all.filter((s) => s.hops!.traces >= FewTraces && s.hops!.hops.length > 0);
  if (steps.length === 0) return [`(no step had ${FewTraces} traces or more for the hop-by-hop table)`];
  return [
    `Hop by hop, at the steps with ${FewTraces} traces or more, p50 / p90 ms:`,
    '',
    '| step | hop | n | relay wait | produce | fetch | transaction |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...steps.flatMap((s) =>
      s.hops!.hops.map(
        (h, i) =>
          `| ${i === 0 ? `${stepName(s)} (${tracesCell(s)} traces)` : ''} | ${h.hop} | ${h.n} | ${both(h.relayWait)} | ${both(h.produce)} | ${both(h.fetch)} | ${both(h.transaction)} |`,
      ),
    ),
  ];
}

/** An order's path crosses four transactions (the request's and three consumers') and four Kafka hops (the load generator fetches the terminal event). */
const PATH_TRANSACTIONS = 4;
const PATH_KAFKA_HOPS = 4;

/**
 * The floor under an order's path from the same run's tools, nobody's code here: Kafka's
 * end-to-end latency tool (one record at a time) per hop, pgbench's one-hop transaction at one
 * client per transaction. `undefined` when the run measured neither (`--skip kafka,pgbench`).
 */
export function pathFloorLine(results: BenchResults): string | undefined {
  const hop = results.kafka?.hop;
  const single = results.pgbench?.find((r) => r.clients === 1);
  if (hop === undefined || single === undefined) return undefined;
  const floor = PATH_TRANSACTIONS * single.latencyAvgMs + PATH_KAFKA_HOPS * hop.avgMs;
  const first = results.steps.find((s) => s.label === 'step');
  return (
    `The floor under an order's path, from the same run's tools: Kafka's EndToEndLatency (one ${results.kafka!.recordSize}-byte record at a time, acks=all, produced then fetched) avg ${hop.avgMs.toFixed(2)} ms (p99 ${hop.p99Ms}: the tool prints its percentiles in whole ms); ` +
    `pgbench's one-hop transaction at 1 client avg ${single.latencyAvgMs.toFixed(2)} ms. ` +
    `${PATH_TRANSACTIONS} transactions and ${PATH_KAFKA_HOPS} Kafka hops: ${f1(floor)} ms` +
    (first
      ? `; e2e p50 at ${stepName(first)} is ${f1(first.e2e.p50)} ms, ×${(first.e2e.p50 / floor).toFixed(1)} the floor.`
      : '.')
  );
}

export function hopsSection(results: BenchResults, plotsDir: string): string[] {
  const steps = traced(results);
  const floor = pathFloorLine(results);
  if (steps.length === 0)
    return [
      results.hopsUnavailable !== undefined
        ? `(unavailable in this run: ${results.hopsUnavailable})`
        : '(not measured in this run)',
    ];
  return [
    'From the traces of the orders the load generator flagged sampled, read back from Zipkin. Per hop (an event sent by one service’s outbox relay and handled by another’s transaction), p50 / p90 in ms: **relay wait**, from the end of the span that wrote the event (the upstream transaction; for order.placed the HTTP request, which ends once its group has committed) to the start of its `send` span; **produce**, the `send` span (relay sends, broker acks); **fetch**, from that ack to the start of the consumer’s `process` span; **transaction**, the `process` span (to after COMMIT). Span start times are whole milliseconds (durations are microseconds), so each gap is ±1 ms; the medians less.',
    '',
    ...pathTable(steps),
    '',
    ...(floor === undefined ? [] : [floor, '']),
    `![where the milliseconds go](${plotsDir}/hops-by-rate.svg)`,
    '',
    ...hopTable(steps),
  ];
}
