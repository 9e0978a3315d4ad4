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
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
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

/**
 * The per-hop breakdown of every step but the warm-up windows, from its sampled orders' traces;
 * read once the services have stopped (and flushed their last spans). Throws when Zipkin does
 * not answer.
 */
export async function stepHopBreakdowns(
  steps: readonly StepResult[],
  zipkin: { readonly url: string; readonly topicPrefix: string },
): Promise<(HopBreakdown | undefined)[]> {
  const breakdowns: (HopBreakdown | undefined)[] = [];
  for (const step of steps) {
    const window = step.label === 'warm-up' ? undefined : loadWindow(step);
    if (window === undefined) {
      breakdowns.push(undefined);
      continue;
    }
    // A second of slack: the request of an order scheduled at the window's end starts after it.
    const traces = await fetchTraces({
      zipkinUrl: zipkin.url,
      topicPrefix: zipkin.topicPrefix,
      fromMs: window.fromMs,
      toMs: window.toMs + 1000,
      limit: MaxTracesPerStep,
    });
    breakdowns.push(hopBreakdown(traces, [OrderConfirmedEvent.type, OrderCancelledEvent.type]));
  }
  return breakdowns;
}

/**
 * The steps with their breakdowns, and why there are none when tracing was off or Zipkin did not
 * answer: the bench completes either way.
 */
export async function withHopBreakdowns(
  steps: readonly StepResult[],
  topicPrefix: string,
  log: (line: string) => void,
): Promise<{ steps: StepResult[]; unavailable?: string }> {
  if (steps.length === 0) return { steps: [] };
  if (traceRatio() === 0) return { steps: [...steps], unavailable: 'tracing was off (BENCH_TRACE_RATIO=0)' };
  const url = zipkinUrl();
  log(`reading the sampled orders' traces back from Zipkin (${url}) for the per-hop breakdown`);
  try {
    const hops = await stepHopBreakdowns(steps, { url, topicPrefix });
    return { steps: steps.map((step, i) => (hops[i] ? { ...step, hops: hops[i] } : step)) };
  } catch (error) {
    return { steps: [...steps], unavailable: `Zipkin at ${url} did not answer (${String(error)})` };
  }
}
