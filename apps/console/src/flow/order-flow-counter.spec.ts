import { describe, expect, it } from 'vitest';
import { OrderFlowCounter } from './order-flow-counter';
import type { FeedEvent } from './order-store';

const START = Date.parse('2026-12-01T10:00:00.000Z');
const event = (type: string, time: string, topic = 'orders'): FeedEvent => ({
  topic,
  partition: 0,
  offset: '0',
  id: `${type}-${time}`,
  type,
  source: 'test',
  time,
  correlationId: 'order-1',
  causationId: undefined,
  traceparent: undefined,
  payload: {},
});

describe('OrderFlowCounter', () => {
  it('counts placed and finished orders per interval and times each from its placed event', () => {
    const counter = new OrderFlowCounter(START);
    counter.record(event('order.placed', '2026-12-01T10:00:01.000Z'), undefined);
    counter.record(event('order.placed', '2026-12-01T10:00:01.100Z'), undefined);
    counter.record(event('payment.authorized', '2026-12-01T10:00:01.200Z', 'payments'), undefined);
    counter.record(event('order.confirmed', '2026-12-01T10:00:01.900Z'), '2026-12-01T10:00:01.100Z');
    counter.record(event('order.cancelled', '2026-12-01T10:00:01.300Z'), '2026-12-01T10:00:01.000Z');
    expect(counter.take()).toEqual({ placed: 2, terminal: 2, e2eMs: [300, 800] });
    expect(counter.take()).toEqual({ placed: 0, terminal: 0, e2eMs: [] });
  });

  it('leaves out the history the feed re-reads at start-up', () => {
    const counter = new OrderFlowCounter(START);
    counter.record(event('order.placed', '2026-12-01T09:59:00.000Z'), undefined);
    counter.record(event('order.confirmed', '2026-12-01T09:59:01.000Z'), '2026-12-01T09:59:00.000Z');
    expect(counter.take()).toEqual({ placed: 0, terminal: 0, e2eMs: [] });
  });

  it('counts a finished order without a known placed time, untimed', () => {
    const counter = new OrderFlowCounter(START);
    counter.record(event('order.confirmed', '2026-12-01T10:00:02.000Z'), undefined);
    expect(counter.take()).toEqual({ placed: 0, terminal: 1, e2eMs: [] });
  });
});
