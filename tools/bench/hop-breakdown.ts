/**
 * Where a hop's milliseconds go, from the spans of sampled orders' traces (Zipkin's v2 JSON).
 * A hop is a PRODUCER span `send <topic>` (the outbox relay sending one event) with a CONSUMER
 * span `process <topic>` as its child (a consuming service's transaction handling it); the send
 * span's parent is the span of whatever wrote the event: the upstream consumer's `process` span,
 * or, for order.placed, the HTTP request span (its group-commit span is a trace of its own,
 * linked to the requests, and Zipkin keeps no links; the request ends as soon as its group has
 * committed).
 */

/** A span as Zipkin's v2 API returns it; `timestamp` and `duration` in microseconds. */
export interface ZipkinSpan {
  readonly traceId: string;
  readonly id: string;
  readonly parentId?: string;
  readonly name?: string;
  readonly kind?: 'CLIENT' | 'SERVER' | 'PRODUCER' | 'CONSUMER';
  readonly timestamp?: number;
  readonly duration?: number;
  readonly localEndpoint?: { readonly serviceName?: string };
  readonly tags?: Readonly<Record<string, string>>;
}

/** Median and 90th percentile, in ms. */
export interface Spread {
  readonly p50: number;
  readonly p90: number;
}

/** The four parts of a hop, in its order. */
export const HopParts = ['relayWait', 'produce', 'fetch', 'transaction'] as const;
export type HopPart = (typeof HopParts)[number];

export type HopSpread = Readonly<Record<HopPart, Spread>> & {
  /** `order.placed → payment-service`: the event type and the service that consumed it. */
  readonly hop: string;
  readonly n: number;
};

/**
 * Per trace, the chain from the request to the send of the order's terminal event, each part
 * summed over the hops on it: request + relay wait + produce + fetch + transaction = total.
 */
export type PathSpread = Readonly<Record<HopPart | 'request' | 'total', Spread>> & {
  readonly n: number;
  readonly hops: number;
};

export interface HopBreakdown {
  /** Traces of the step's sampled orders that were read. */
  readonly traces: number;
  /** In the order the saga reaches them: by when their send, then their process span, starts (medians). */
  readonly hops: readonly HopSpread[];
  readonly path?: PathSpread;
}

const EventTypeTag = 'cloudevents.event_type';

type Timed = ZipkinSpan & { readonly timestamp: number; readonly duration: number };

const isTimed = (span: ZipkinSpan | undefined): span is Timed =>
  span !== undefined && span.timestamp !== undefined && span.duration !== undefined;

const endOf = (span: Timed): number => span.timestamp + span.duration;

const ms = (micros: number): number => micros / 1000;

/** Nearest-rank percentile of values sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round2(percentile(sorted, 0.5)), p90: round2(percentile(sorted, 0.9)) };
}

/** One hop of one trace: the writer's span, the send span and the process span. */
interface HopSample {
  readonly hop: string;
  /** When the send, then the process span, started, from the trace's first span (ms): orders the hops. */
  readonly at: number;
  readonly processAt: number;
  readonly parts: Record<HopPart, number>;
}

function eventType(send: ZipkinSpan, process: ZipkinSpan): string {
  return send.tags?.[EventTypeTag] ?? process.tags?.[EventTypeTag] ?? send.name ?? '?';
}

/** The hop that ends in `process`, when its send span and that one's parent are there. */
function hopSample(
  process: Timed,
  byId: ReadonlyMap<string, ZipkinSpan>,
  start: number,
): HopSample | undefined {
  const send = byId.get(process.parentId ?? '');
  if (!isTimed(send) || send.kind !== 'PRODUCER') return undefined;
  const writer = byId.get(send.parentId ?? '');
  if (!isTimed(writer)) return undefined;
  return {
    hop: `${eventType(send, process)} → ${process.localEndpoint?.serviceName ?? '?'}`,
    at: ms(send.timestamp - start),
    processAt: ms(process.timestamp - start),
    parts: {
      relayWait: ms(send.timestamp - endOf(writer)),
      produce: ms(send.duration),
      fetch: ms(process.timestamp - endOf(send)),
      transaction: ms(process.duration),
    },
  };
}

function hopSamples(trace: readonly ZipkinSpan[]): HopSample[] {
  const byId = new Map(trace.map((span) => [span.id, span]));
  const start = Math.min(...trace.filter(isTimed).map((span) => span.timestamp));
  return trace
    .filter((span): span is Timed => span.kind === 'CONSUMER' && isTimed(span))
    .map((process) => hopSample(process, byId, start))
    .filter((sample): sample is HopSample => sample !== undefined);
}

type PathSample = Record<HopPart | 'request' | 'total', number> & { hops: number };

/**
 * Walks up from the send of the terminal event to the request that started the order; undefined
 * when a span on the way is missing (not exported yet, or evicted).
 */
function pathSample(
  trace: readonly ZipkinSpan[],
  terminalTypes: ReadonlySet<string>,
): PathSample | undefined {
  const byId = new Map(trace.map((span) => [span.id, span]));
  const terminal = trace.find(
    (span) => span.kind === 'PRODUCER' && terminalTypes.has(span.tags?.[EventTypeTag] ?? ''),
  );
  if (!isTimed(terminal)) return undefined;
  const sum: PathSample = {
    request: 0,
    relayWait: 0,
    produce: 0,
    fetch: 0,
    transaction: 0,
    total: 0,
    hops: 0,
  };
  let send: Timed = terminal;
  for (;;) {
    sum.produce += ms(send.duration);
    const writer = byId.get(send.parentId ?? '');
    if (!isTimed(writer)) return undefined;
    sum.relayWait += ms(send.timestamp - endOf(writer));
    if (writer.kind !== 'CONSUMER') {
      sum.request = ms(writer.duration);
      sum.total = ms(endOf(terminal) - writer.timestamp);
      return sum;
    }
    sum.transaction += ms(writer.duration);
    sum.hops++;
    const upstream = byId.get(writer.parentId ?? '');
    if (!isTimed(upstream) || upstream.kind !== 'PRODUCER') return undefined;
    sum.fetch += ms(writer.timestamp - endOf(upstream));
    send = upstream;
  }
}

const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

function pathSpread(samples: readonly PathSample[]): PathSpread | undefined {
  if (samples.length === 0) return undefined;
  const of = (key: HopPart | 'request' | 'total'): Spread => spread(samples.map((s) => s[key]));
  return {
    n: samples.length,
    hops: median(samples.map((s) => s.hops)),
    request: of('request'),
    relayWait: of('relayWait'),
    produce: of('produce'),
    fetch: of('fetch'),
    transaction: of('transaction'),
    total: of('total'),
  };
}

/** Median and p90 of each part of each hop over the traces, and of the path to the terminal event. */
export function hopBreakdown(
  traces: readonly (readonly ZipkinSpan[])[],
  terminalTypes: readonly string[],
): HopBreakdown {
  const byHop = new Map<string, HopSample[]>();
  for (const sample of traces.flatMap(hopSamples)) {
    const samples = byHop.get(sample.hop) ?? [];
    samples.push(sample);
    byHop.set(sample.hop, samples);
  }
  const hops = [...byHop.entries()]
    .map(([hop, samples]) => ({
      hop,
      at: median(samples.map((s) => s.at)),
      processAt: median(samples.map((s) => s.processAt)),
      samples,
    }))
    .sort((a, b) => a.at - b.at || a.processAt - b.processAt || a.hop.localeCompare(b.hop))
    .map(({ hop, samples }): HopSpread => ({
      hop,
      n: samples.length,
      ...(Object.fromEntries(
        HopParts.map((part) => [part, spread(samples.map((s) => s.parts[part]))]),
      ) as Record<HopPart, Spread>),
    }));
  const terminals = new Set(terminalTypes);
  const paths = traces
    .map((trace) => pathSample(trace, terminals))
    .filter((p): p is PathSample => p !== undefined);
  const path = pathSpread(paths);
  return { traces: traces.length, hops, ...(path ? { path } : {}) };
}
