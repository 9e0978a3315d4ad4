import { OrderCancelledEvent, OrderConfirmedEvent, Topics } from '@pipeline/contracts';
import { traceRatio, zipkinUrl } from './bench-environment';
import type { StepResult } from './bench-results';
import { hopBreakdown, type HopBreakdown, type ZipkinSpan } from './hop-breakdown';

/** Traces read per step at most: enough for a p90, and a bounded answer (each trace is ~50 spans). */
export const MaxTracesPerStep = 300;

/** Fewer traces than this and a step's breakdown is marked rough. */
export const FewTraces = 20;

export interface TraceQuery {
  readonly zipkinUrl: string;
  /** The bench's topic prefix: its span names (`send <prefix>orders`) keep other runs' traces out. */
  readonly topicPrefix: string;
  readonly fromMs: number;
  readonly toMs: number;
  readonly limit: number;
  /** How long one answer may take (default 60 s). */
  readonly timeoutMs?: number;
}

/** Where the bench reads its sampled orders' traces: the Zipkin, and the run's topic prefix. */
export interface TraceSource {
  readonly url: string;
  readonly topicPrefix: string;
}

/**
 * The traces with a span `send <prefix>orders` in order-service that began in [fromMs, toMs]:
 * Zipkin dates a trace by its root span, or its earliest when, as here, the root's parent (the
 * load generator, which exports no spans) is missing: the order's HTTP request.
 */
export async function fetchTraces(query: TraceQuery): Promise<ZipkinSpan[][]> {
  const url = new URL('/api/v2/traces', query.zipkinUrl);
  url.searchParams.set('serviceName', 'order-service');
  url.searchParams.set('spanName', `send ${query.topicPrefix}${Topics.orders}`.toLowerCase());
  url.searchParams.set('endTs', String(Math.ceil(query.toMs)));
  url.searchParams.set('lookback', String(Math.max(1, Math.ceil(query.toMs - query.fromMs))));
  url.searchParams.set('limit', String(query.limit));
  const response = await fetch(url, { signal: AbortSignal.timeout(query.timeoutMs ?? 60_000) });
  if (!response.ok) throw new Error(`Zipkin answered ${response.status} to ${url.pathname}${url.search}`);
  const traces = (await response.json()) as ZipkinSpan[][];
  return traces.filter((trace) => {
    const start = Math.min(...trace.map((span) => span.timestamp ?? Infinity)) / 1000;
    return start >= query.fromMs && start <= query.toMs;
  });
}

/** The load window of a step, in ms since the epoch, when its report said when it began. */
export function loadWindow(step: StepResult): { fromMs: number; toMs: number } | undefined {
  if (step.window === undefined) return undefined;
  const fromMs = Date.parse(step.window.startedAt);
  return Number.isNaN(fromMs) ? undefined : { fromMs, toMs: fromMs + step.window.seconds * 1000 };
}

/** Where a measured step's traces are; none for a warm-up window (no breakdown) or a step without a window. */
const measuredWindow = (step: StepResult): { fromMs: number; toMs: number } | undefined =>
  step.label === 'warm-up' ? undefined : loadWindow(step);

function stepQuery(step: StepResult, source: TraceSource, timeoutMs?: number): TraceQuery | undefined {
  const window = measuredWindow(step);
  if (window === undefined) return undefined;
  // A second of slack: the request of an order scheduled at the window's end starts after it.
  return {
    zipkinUrl: source.url,
    topicPrefix: source.topicPrefix,
    fromMs: window.fromMs,
    toMs: window.toMs + 1000,
    limit: MaxTracesPerStep,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

const breakdown = (traces: readonly (readonly ZipkinSpan[])[]): HopBreakdown =>
  hopBreakdown(traces, [OrderConfirmedEvent.type, OrderCancelledEvent.type]);

/** How long to wait for a step's traces to reach Zipkin; the clock is the tests' to replace. */
export interface SettleOptions {
  /** Between two reads (default 1 s): longer than the services' span export delay. */
  readonly intervalMs?: number;
  /** The wait's bound (default 20 s): past it, the breakdown is made from what Zipkin has. */
  readonly maxWaitMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface SettledTraces {
  readonly traces: ZipkinSpan[][];
  /** The number of traces and of spans was the same in the last two reads. */
  readonly settled: boolean;
  readonly waitedMs: number;
}

const spanCount = (traces: readonly (readonly ZipkinSpan[])[]): number =>
  traces.reduce((sum, trace) => sum + trace.length, 0);

/**
 * The traces of `query` once they have all reached Zipkin: read until the number of traces and of
 * spans is the same in two reads `intervalMs` apart (the services export their spans in batches,
 * every OTEL_BSP_SCHEDULE_DELAY), or until `maxWaitMs`. Throws when Zipkin does not answer.
 */
export async function settledTraces(query: TraceQuery, options: SettleOptions = {}): Promise<SettledTraces> {
  const intervalMs = options.intervalMs ?? 1000;
  const maxWaitMs = options.maxWaitMs ?? 20_000;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const startedMs = now();
  let traces = await fetchTraces(query);
  while (now() - startedMs + intervalMs <= maxWaitMs) {
    await sleep(intervalMs);
    const next = await fetchTraces(query);
    const same = next.length === traces.length && spanCount(next) === spanCount(traces);
    traces = next;
    if (same) return { traces, settled: true, waitedMs: now() - startedMs };
  }
  return { traces, settled: false, waitedMs: now() - startedMs };
}

/**
 * A measured step's per-hop breakdown, read right after the step while Zipkin still holds its
 * traces (the local Zipkin keeps a bounded number of spans: by the end of a run with high-rate
 * steps, the early steps' traces are gone). Undefined for the warm-up, or when Zipkin did not
 * answer: the bench goes on, and the end of the run tries again (`withHopBreakdowns`).
 */
export async function readStepHops(
  step: StepResult,
  source: TraceSource,
  log: (line: string) => void,
  options: SettleOptions = {},
): Promise<HopBreakdown | undefined> {
  const query = stepQuery(step, source, 10_000);
  if (query === undefined) return undefined;
  try {
    const { traces, settled, waitedMs } = await settledTraces(query, options);
    const seconds = (waitedMs / 1000).toFixed(1);
    log(
      `  traces: ${traces.length} sampled orders' traces (${spanCount(traces)} spans) in Zipkin, ${
        settled ? `all in after ${seconds} s` : `still arriving after ${seconds} s (breakdown from those)`
      }`,
    );
    return breakdown(traces);
  } catch (error) {
    log(
      `  traces: Zipkin at ${source.url} did not answer (${String(error)}); trying again at the end of the run`,
    );
    return undefined;
  }
}

/**
 * The per-hop breakdown of every step but the warm-up windows, from its sampled orders' traces;
 * read at once (the services have stopped and flushed their last spans). Throws when Zipkin does
 * not answer.
 */
export async function stepHopBreakdowns(
  steps: readonly StepResult[],
  zipkin: TraceSource,
): Promise<(HopBreakdown | undefined)[]> {
  const breakdowns: (HopBreakdown | undefined)[] = [];
  for (const step of steps) {
    const query = stepQuery(step, zipkin);
    breakdowns.push(query === undefined ? undefined : breakdown(await fetchTraces(query)));
  }
  return breakdowns;
}

/**
 * At the end of the run: the steps with their breakdowns, and why there are none when tracing was
 * off or Zipkin did not answer: the bench completes either way. Each measured step's breakdown is
 * read right after the step (`readStepHops`, from `runStep`); this reads only the steps that have
 * none yet, because Zipkin did not answer then: by now it may have dropped their traces.
 */
export async function withHopBreakdowns(
  steps: readonly StepResult[],
  topicPrefix: string,
  log: (line: string) => void,
): Promise<{ steps: StepResult[]; unavailable?: string }> {
  if (steps.length === 0) return { steps: [] };
  if (traceRatio() === 0) return { steps: [...steps], unavailable: 'tracing was off (BENCH_TRACE_RATIO=0)' };
  const missing = steps.filter((step) => step.hops === undefined && measuredWindow(step));
  if (missing.length === 0) return { steps: [...steps] };
  const url = zipkinUrl();
  log(
    `reading the sampled orders' traces back from Zipkin (${url}) for the per-hop breakdown of the ${missing.length} step(s) not read during the run`,
  );
  try {
    const hops = await stepHopBreakdowns(missing, { url, topicPrefix });
    const byStep = new Map(missing.map((step, i) => [step, hops[i]]));
    return {
      steps: steps.map((step) => {
        const found = byStep.get(step);
        return found ? { ...step, hops: found } : step;
      }),
    };
  } catch (error) {
    const reason = `Zipkin at ${url} did not answer (${String(error)})`;
    if (steps.some((step) => step.hops !== undefined)) {
      log(`  ${reason}: those steps have no per-hop breakdown`);
      return { steps: [...steps] };
    }
    return { steps: [...steps], unavailable: reason };
  }
}
