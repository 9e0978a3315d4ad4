import { describe, expect, it } from 'vitest';
import { hopBreakdown, percentile, spread, type ZipkinSpan } from './hop-breakdown';

const Terminal = ['order.confirmed', 'order.cancelled'];

/** Times in ms from the trace's start, as Zipkin's microseconds from an epoch moment. */
const T0 = 1_796_410_978_000_000;
const span = (
  trace: string,
  id: string,
  parentId: string | undefined,
  fields: {
    kind?: ZipkinSpan['kind'];
    name: string;
    service: string;
    atMs: number;
    ms: number;
    event?: string;
  },
): ZipkinSpan => ({
  traceId: trace,
  id: `${trace}-${id}`,
  ...(parentId ? { parentId: `${trace}-${parentId}` } : {}),
  ...(fields.kind ? { kind: fields.kind } : {}),
  name: fields.name,
  timestamp: T0 + fields.atMs * 1000,
  duration: fields.ms * 1000,
  localEndpoint: { serviceName: fields.service },
  tags: fields.event ? { 'cloudevents.event_type': fields.event } : {},
});

/** One order's trace as the pipeline exports it; `slow` adds to the payment service's fetch. */
function orderTrace(trace: string, slow = 0): ZipkinSpan[] {
  const send = (id: string, parent: string, service: string, atMs: number, ms: number, event: string) =>
    span(trace, id, parent, { kind: 'PRODUCER', name: 'send t.orders', service, atMs, ms, event });
  const proc = (id: string, parent: string, service: string, atMs: number, ms: number) =>
    span(trace, id, parent, { kind: 'CONSUMER', name: 'process t.orders', service, atMs, ms });
  return [
    // The request's parent is the load generator's span, which is not exported.
    span(trace, 'post', 'loadgen', {
      kind: 'SERVER',
      name: 'post /orders',
      service: 'order-service',
      atMs: 0,
      ms: 8,
    }),
    send('placed', 'post', 'order-service', 10, 4, 'order.placed'),
    proc('pay', 'placed', 'payment-service', 44 + slow, 12),
    // Analytics takes its events later (it batches): after payment's, whatever the name.
    proc('stats', 'placed', 'analytics-service', 1600, 15),
    span(trace, 'pg', 'pay', {
      kind: 'CLIENT',
      name: 'pg.query:commit',
      service: 'payment-service',
      atMs: 50,
      ms: 3,
    }),
    send('auth', 'pay', 'payment-service', 61 + slow, 5, 'payment.authorized'),
    proc('inv', 'auth', 'inventory-service', 100 + slow, 14),
    proc('ord-pay', 'auth', 'order-service', 190 + slow, 13),
    send('reserved', 'inv', 'inventory-service', 120 + slow, 5, 'stock.reserved'),
    // A send nobody in the trace consumes is no hop.
    send('stock', 'inv', 'inventory-service', 120 + slow, 5, 'stock.changed'),
    proc('ord', 'reserved', 'order-service', 190 + slow, 13),
    send('confirmed', 'ord', 'order-service', 220 + slow, 4, 'order.confirmed'),
    proc('mail', 'confirmed', 'email-service', 300 + slow, 140),
  ];
}

describe('percentiles', () => {
  it('takes the nearest rank', () => {
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
    expect(percentile([7], 0.9)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
    expect(spread([30, 10, 20])).toEqual({ p50: 20, p90: 30 });
  });
});

describe('the per-hop breakdown of a trace', () => {
  const breakdown = hopBreakdown([orderTrace('a')], Terminal);

  it('has a hop per send span and consumer, in the order the saga reaches them', () => {
    expect(breakdown.traces).toBe(1);
    expect(breakdown.hops.map((h) => h.hop)).toEqual([
      'order.placed → payment-service',
      'order.placed → analytics-service',
      'payment.authorized → inventory-service',
      'payment.authorized → order-service',
      'stock.reserved → order-service',
      'order.confirmed → email-service',
    ]);
  });

  it('measures relay wait from the writer’s end, produce, fetch from the ack, and the transaction', () => {
    const [placed, , , authorizedToOrder, , confirmed] = breakdown.hops;
    // The request ends at 8 ms; the relay sends at 10 until 14; payment begins at 44 for 12 ms.
    expect(placed).toMatchObject({
      n: 1,
      relayWait: { p50: 2 },
      produce: { p50: 4 },
      fetch: { p50: 30 },
      transaction: { p50: 12 },
    });
    expect(authorizedToOrder).toMatchObject({ relayWait: { p50: 5 }, fetch: { p50: 124 } });
    expect(confirmed).toMatchObject({
      relayWait: { p50: 17 },
      fetch: { p50: 76 },
      transaction: { p50: 140 },
    });
  });

  it('sums the path from the request to the terminal event’s send', () => {
    expect(breakdown.path).toEqual({
      n: 1,
      hops: 3,
      request: { p50: 8, p90: 8 },
      relayWait: { p50: 30, p90: 30 },
      produce: { p50: 18, p90: 18 },
      fetch: { p50: 129, p90: 129 },
      transaction: { p50: 39, p90: 39 },
      total: { p50: 224, p90: 224 },
    });
  });

  it('takes p50 and p90 over the traces', () => {
    const traces = Array.from({ length: 10 }, (_, i) => orderTrace(`t${i}`, i));
    const placed = hopBreakdown(traces, Terminal).hops[0]!;
    expect(placed.n).toBe(10);
    expect(placed.fetch).toEqual({ p50: 34, p90: 38 });
    expect(placed.produce).toEqual({ p50: 4, p90: 4 });
  });

  it('leaves out a hop whose writer span is missing, and the path through it', () => {
    const partial = orderTrace('p').filter((s) => s.id !== 'p-pay');
    const result = hopBreakdown([partial], Terminal);
    expect(result.hops.map((h) => h.hop)).not.toContain('payment.authorized → inventory-service');
    expect(result.hops.map((h) => h.hop)).not.toContain('order.placed → payment-service');
    expect(result.path).toBeUndefined();
  });

  it('is empty for no traces', () => {
    expect(hopBreakdown([], Terminal)).toEqual({ traces: 0, hops: [] });
  });
});
