import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepResult } from './bench-results';
import type { ZipkinSpan } from './hop-breakdown';
import { fetchTraces, withHopBreakdowns } from './step-traces';

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

describe('reading a step’s traces from Zipkin', () => {
  const queries: URL[] = [];
  const endpoint = process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      queries.push(new URL(request.url ?? '/', 'http://zipkin'));
      response.setHeader('content-type', 'application/json');
      // Zipkin's window is the query's; one trace outside it checks the bench's own filter.
      response.end(JSON.stringify([trace('a', StartMs + 500), trace('b', StartMs - 5000)]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (endpoint === undefined) delete process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT;
    else process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = endpoint;
    await new Promise<void>((resolve) => server.close(() => resolve()));
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

  it('breaks down every step but the warm-up', async () => {
    const step = (label: StepResult['label']) =>
      ({
        label,
        offered: 25,
        window: { startedAt: new Date(StartMs).toISOString(), seconds: 20 },
      }) as StepResult;
    process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `${url}/api/v2/spans`;
    const { steps, unavailable } = await withHopBreakdowns([step('warm-up'), step('step')], 'p.', () => {});
    expect(unavailable).toBeUndefined();
    expect(steps[0]!.hops).toBeUndefined();
    expect(steps[1]!.hops).toEqual({ traces: 1, hops: [] });
  });

  it('says the breakdown is unavailable when Zipkin does not answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `http://127.0.0.1:${port}/api/v2/spans`;
    const step = { label: 'step', window: { startedAt: new Date(StartMs).toISOString(), seconds: 20 } };
    const { steps, unavailable } = await withHopBreakdowns([step as StepResult], 'p.', () => {});
    expect(unavailable).toMatch(/^Zipkin at http:\/\/127\.0\.0\.1:\d+ did not answer/);
    expect(steps).toHaveLength(1);
  });
});
