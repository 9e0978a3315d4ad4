import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  causalOrder,
  MAX_EVENTS_PER_ORDER,
  MAX_FIELD_CHARS,
  OrderStore,
  type FeedEvent,
} from './order-store';

const ORDER = '0b6f3c1e-0000-4000-8000-000000000001';
let offset = 0;
const event = (
  type: string,
  id: string,
  time: string,
  causationId?: string,
  payload: unknown = {},
): FeedEvent => ({
  topic: type.startsWith('order.') ? 'orders' : type.startsWith('payment.') ? 'payments' : 'inventory',
  partition: 2,
  offset: String(offset++),
  id,
  type,
  source: 'test',
  time,
  correlationId: ORDER,
  causationId,
  traceparent: undefined,
  payload,
});

afterEach(() => vi.useRealTimers());

describe('causalOrder', () => {
  it('puts every effect after its cause, even when its event time is earlier (clock skew)', () => {
    const placed = event('order.placed', 'a', '2026-12-01T10:00:00.000Z');
    const authorized = event('payment.authorized', 'b', '2026-12-01T10:00:00.300Z', 'a');
    // inventory-service's clock is behind: its event time is before the cause's.
    const reserved = event('stock.reserved', 'c', '2026-12-01T10:00:00.100Z', 'b');
    const confirmed = event('order.confirmed', 'd', '2026-12-01T10:00:00.400Z', 'c');
    expect(causalOrder([confirmed, reserved, authorized, placed]).map((e) => e.type)).toEqual([
      'order.placed',
      'payment.authorized',
      'stock.reserved',
      'order.confirmed',
    ]);
  });

  it('orders siblings and unrelated events by time', () => {
    const placed = event('order.placed', 'a', '2026-12-01T10:00:00.000Z');
    const rejected = event('stock.rejected', 'r', '2026-12-01T10:00:00.200Z', 'p');
    const authorized = event('payment.authorized', 'p', '2026-12-01T10:00:00.100Z', 'a');
    const cancelled = event('order.cancelled', 'x', '2026-12-01T10:00:00.300Z', 'r');
    const refunded = event('payment.refunded', 'f', '2026-12-01T10:00:00.250Z', 'r');
    expect(causalOrder([cancelled, refunded, rejected, authorized, placed]).map((e) => e.id)).toEqual([
      'a',
      'p',
      'r',
      'f',
      'x',
    ]);
  });
});

describe('OrderStore', () => {
  it('follows an order to its terminal state, once per record, and tells listeners in one flush', () => {
    vi.useFakeTimers();
    const store = new OrderStore({ maxOrders: 10 }, 250);
    const flushes: string[][] = [];
    store.subscribe((changed) => flushes.push(changed.map((o) => `${o.orderId}:${o.status}`)));
    const placed = event('order.placed', 'a', '2026-12-01T10:00:00.000Z', undefined, {
      customerId: 'c1',
      total: '4.20',
      currency: 'EUR',
    });
    const cancelled = event('order.cancelled', 'x', '2026-12-01T10:00:01.000Z', 'a', {
      reason: 'payment_declined',
    });
    store.add(placed);
    store.add(placed); // a redelivered record
    store.add(cancelled);
    expect(flushes).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(flushes).toEqual([[`${ORDER}:CANCELLED`]]);
    const order = store.get(ORDER.toUpperCase())!;
    expect(order).toMatchObject({
      status: 'CANCELLED',
      reason: 'payment_declined',
      customerId: 'c1',
      total: '4.20',
    });
    expect(order.events).toHaveLength(2);
  });

  it('keeps at most maxOrders, dropping the oldest', () => {
    const store = new OrderStore({ maxOrders: 2 }, 10_000);
    for (const n of [1, 2, 3]) {
      store.add({
        ...event('order.placed', `p${n}`, `2026-12-01T10:00:0${n}.000Z`),
        correlationId: `order-${n}`,
      });
    }
    expect(store.size).toBe(2);
    expect(store.recent(10).map((o) => o.orderId)).toEqual(['order-3', 'order-2']);
    store.close();
  });

  it('keeps at most MAX_EVENTS_PER_ORDER events of one order, and still applies the later ones', () => {
    const store = new OrderStore({ maxOrders: 10 }, 10_000);
    const tapped: string[] = [];
    store.tap((e) => tapped.push(e.id));
    for (let n = 0; n < MAX_EVENTS_PER_ORDER + 5; n++)
      store.add(event('payment.authorized', `e${n}`, '2026-12-01T10:00:00.000Z'));
    const placed = event('order.placed', 'placed', '2026-12-01T10:00:00.000Z');
    store.add(placed);
    store.add(event('order.confirmed', 'done', '2026-12-01T10:00:01.000Z', 'placed'));
    const order = store.get(ORDER)!;
    expect(order.events).toHaveLength(MAX_EVENTS_PER_ORDER);
    expect(order.dropped).toBe(7);
    expect(order.status).toBe('CONFIRMED');
    expect(tapped).toHaveLength(MAX_EVENTS_PER_ORDER + 7);
    store.add({ ...order.events[0]!, payload: {} }); // a redelivered record is not tapped again
    expect(tapped).toHaveLength(MAX_EVENTS_PER_ORDER + 7);
    store.close();
  });

  it('takes its per-order event cap from maxEventsPerOrder', () => {
    const store = new OrderStore({ maxOrders: 10, maxEventsPerOrder: 3 }, 10_000);
    for (let n = 0; n < 5; n++) store.add(event('payment.authorized', `e${n}`, '2026-12-01T10:00:00.000Z'));
    expect(store.get(ORDER)).toMatchObject({ events: { length: 3 }, dropped: 2 });
    store.close();
  });

  it('keeps no payload and no long string: what a writer to the topic sends cannot grow an order', () => {
    const store = new OrderStore({ maxOrders: 10 }, 10_000);
    const huge = 'z'.repeat(1024 * 1024);
    store.add({
      ...event('order.cancelled', 'x', '2026-12-01T10:00:00.000Z', undefined, {
        reason: huge,
        items: [huge],
      }),
      source: huge,
      traceparent: huge,
    });
    const order = store.get(ORDER)!;
    expect(order.events[0]).not.toHaveProperty('payload');
    expect(order.reason).toHaveLength(MAX_FIELD_CHARS + 1);
    expect(order.events[0]!.source).toHaveLength(MAX_FIELD_CHARS + 1);
    expect(order.events[0]!.traceparent).toHaveLength(MAX_FIELD_CHARS + 1);
    // An order id that long is no order of this pipeline.
    store.add({ ...event('order.placed', 'y', '2026-12-01T10:00:00.000Z'), correlationId: huge });
    expect(store.size).toBe(1);
    store.close();
  });

  it('leaves an order dropped for maxOrders out of the next flush', () => {
    vi.useFakeTimers();
    const store = new OrderStore({ maxOrders: 2 }, 250);
    const flushed: string[][] = [];
    store.subscribe((changed) => flushed.push(changed.map((o) => o.orderId)));
    for (const n of [1, 2, 3, 4, 5])
      store.add({
        ...event('order.placed', `p${n}`, `2026-12-01T10:00:0${n}.000Z`),
        correlationId: `order-${n}`,
      });
    vi.advanceTimersByTime(250);
    expect(flushed).toEqual([['order-4', 'order-5']]);
    store.close();
  });
});
