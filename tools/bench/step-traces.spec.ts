import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StepResult } from './bench-results';
import type { ZipkinSpan } from './hop-breakdown';
import { fetchTraces, readStepHops, settledTraces, withHopBreakdowns, type TraceQuery } from './step-traces';

const StartMs = Date.parse('2026-12-03T10:00:00.000Z');

/** A trace of two spans: a request at `atMs` and the send of its order.placed 10 ms later. */
const trace = (id: string, atMs: number): ZipkinSpan[] => [
  { traceId: id, id: `${id}1`, parentId: 'loadgen', kind: 'SERVER', timestamp: atMs * 1000, duration: 5000 },
  {
    traceId: id,
    id: `${id}2`,
    parentId: `${id}1`,
    kind: 'PRODUCER',
    timestamp: (atMs + 10) * 1000,
    duration: 3000,
    tags: { 'cloudevents.event_type': 'order.placed' },
  },
];

const step = (label: StepResult['label'], hops?: StepResult['hops']) =>
  ({
    label,
    offered: 25,
    window: { startedAt: new Date(StartMs).toISOString(), seconds: 20 },
    ...(hops ? { hops } : {}),
  }) as StepResult;

/** A port nothing listens on: a Zipkin that does not answer. */
async function closedPort(): Promise<number> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  return port;
}

/** A clock that only moves when the code under test waits: no real time passes. */
const fakeClock = () => {
  let now = 0;
  return { now: () => now, sleep: (ms: number) => Promise.resolve(void (now += ms)) };
};

describe('reading a step’s traces from Zipkin', () => {
  const queries: URL[] = [];
  const endpoint = process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT;
  const ratio = process.env.BENCH_TRACE_RATIO;
  /** What the fake Zipkin answers next; by default one trace in the window and one before it. */
  let answer: () => ZipkinSpan[][];
  const standing = () => [trace('a', StartMs + 500), trace('b', StartMs - 5000)];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      queries.push(new URL(request.url ?? '/', 'http://zipkin'));
      response.setHeader('content-type', 'application/json');
      // Zipkin's window is the query's; one trace outside it checks the bench's own filter.
      response.end(JSON.stringify(answer()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    answer = standing;
    if (endpoint === undefined) delete process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT;
    else process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = endpoint;
    if (ratio === undefined) delete process.env.BENCH_TRACE_RATIO;
    else process.env.BENCH_TRACE_RATIO = ratio;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  answer = standing;

  const query = (): TraceQuery => ({
    zipkinUrl: url,
    topicPrefix: 'p.',
    fromMs: StartMs,
    toMs: StartMs + 21_000,
    limit: 300,
  });

  it('asks for the run’s order-service sends in the window, and keeps the traces that began in it', async () => {
    const traces = await fetchTraces({
      zipkinUrl: url,
      topicPrefix: 'bench-20261203t1000.',
      fromMs: StartMs,
      toMs: StartMs + 20_000,
      limit: 300,
    });
    expect(traces.map((t) => t[0]?.traceId)).toEqual(['a']);
    const query = queries.at(-1)!;
    expect(query.pathname).toBe('/api/v2/traces');
    expect(Object.fromEntries(query.searchParams)).toEqual({
      serviceName: 'order-service',
      spanName: 'send bench-20261203t1000.orders',
      endTs: String(StartMs + 20_000),
      lookback: '20000',
      limit: '300',
    });
  });

  it('waits until the window’s traces and their spans stop arriving', async () => {
    // Traces arrive, then a span of one of them, then nothing more.
    const reads = [
      [trace('a', StartMs + 500)],
      [trace('a', StartMs + 500), trace('c', StartMs + 900)],
      [
        trace('a', StartMs + 500),
        [...trace('c', StartMs + 900), { ...trace('c', StartMs + 950)[1]!, id: 'c3' }],
      ],
    ];
    let read = 0;
    answer = () => reads[Math.min(read++, reads.length - 1)]!;
    const { traces, settled, waitedMs } = await settledTraces(query(), { intervalMs: 1000, ...fakeClock() });
    expect(settled).toBe(true);
    expect(read).toBe(4);
    expect(waitedMs).toBe(3000);
    expect(traces.map((t) => t.length)).toEqual([2, 3]);
  });

  it('stops waiting at its bound, with the traces Zipkin has by then', async () => {
    let read = 0;
    answer = () => Array.from({ length: ++read }, (_, i) => trace(`t${i}`, StartMs + 100 * i));
    const { traces, settled, waitedMs } = await settledTraces(query(), {
      intervalMs: 1000,
      maxWaitMs: 5000,
      ...fakeClock(),
    });
    expect(settled).toBe(false);
    expect(waitedMs).toBe(5000);
    expect(read).toBe(6);
    expect(traces).toHaveLength(6);
  });

  it('breaks a measured step down right after it, and not a warm-up window', async () => {
    const lines: string[] = [];
    const source = { url, topicPrefix: 'p.' };
    const before = queries.length;
    expect(await readStepHops(step('warm-up'), source, (l) => lines.push(l), fakeClock())).toBeUndefined();
    expect(queries).toHaveLength(before);
    expect(await readStepHops(step('step'), source, (l) => lines.push(l), fakeClock())).toEqual({
      traces: 1,
      hops: [],
    });
    expect(lines).toEqual(["  traces: 1 sampled orders' traces (2 spans) in Zipkin, all in after 1.0 s"]);
  });

  it('leaves a step without a breakdown, and the bench going, when Zipkin does not answer', async () => {
    const lines: string[] = [];
    const source = { url: `http://127.0.0.1:${await closedPort()}`, topicPrefix: 'p.' };
    expect(await readStepHops(step('step'), source, (l) => lines.push(l), fakeClock())).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/^ {2}traces: Zipkin at .* did not answer/)]);
  });

  it('breaks down at the end of the run every step but the warm-up that has no breakdown yet', async () => {
    process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `${url}/api/v2/spans`;
    const { steps, unavailable } = await withHopBreakdowns([step('warm-up'), step('step')], 'p.', () => {});
    expect(unavailable).toBeUndefined();
    expect(steps[0]!.hops).toBeUndefined();
    expect(steps[1]!.hops).toEqual({ traces: 1, hops: [] });
  });

  it('keeps the breakdowns read during the run, and asks Zipkin only for the others', async () => {
    process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `${url}/api/v2/spans`;
    const duringRun = { traces: 7, hops: [] };
    const before = queries.length;
    const all = await withHopBreakdowns([step('step', duringRun), step('half rate', duringRun)], 'p.', () => {
      throw new Error('nothing to read at the end');
    });
    expect(queries).toHaveLength(before);
    expect(all.steps.map((s) => s.hops)).toEqual([duringRun, duringRun]);
    const some = await withHopBreakdowns([step('step', duringRun), step('step')], 'p.', () => {});
    expect(queries).toHaveLength(before + 1);
    expect(some.steps.map((s) => s.hops?.traces)).toEqual([7, 1]);
  });

  it('says the breakdown is unavailable when Zipkin does not answer', async () => {
    process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `http://127.0.0.1:${await closedPort()}/api/v2/spans`;
    const { steps, unavailable } = await withHopBreakdowns([step('step')], 'p.', () => {});
    expect(unavailable).toMatch(/^Zipkin at http:\/\/127\.0\.0\.1:\d+ did not answer/);
    expect(steps).toHaveLength(1);
  });

  it('keeps the steps read during the run when Zipkin no longer answers at the end', async () => {
    process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `http://127.0.0.1:${await closedPort()}/api/v2/spans`;
    const lines: string[] = [];
    const { steps, unavailable } = await withHopBreakdowns(
      [step('step', { traces: 7, hops: [] }), step('step')],
      'p.',
      (l) => lines.push(l),
    );
    expect(unavailable).toBeUndefined();
    expect(steps.map((s) => s.hops?.traces)).toEqual([7, undefined]);
    expect(lines.at(-1)).toMatch(/did not answer .*: those steps have no per-hop breakdown$/);
  });

  it('says the breakdown is unavailable when tracing was off', async () => {
    process.env.BENCH_TRACE_RATIO = '0';
    const { unavailable } = await withHopBreakdowns([step('step')], 'p.', () => {});
    expect(unavailable).toBe('tracing was off (BENCH_TRACE_RATIO=0)');
  });
});
