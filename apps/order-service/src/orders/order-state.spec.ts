import { describe, expect, it } from 'vitest';
import { OrderStatus } from '../generated/prisma/enums';
import { SagaEventTypes, transition, type SagaEventType, type Transition } from './order-state';

const expected: Record<OrderStatus, Record<SagaEventType, Transition>> = {
  PENDING: {
    'payment.authorized': { next: 'PENDING' },
    'payment.refunded': { next: 'PENDING' },
    'payment.declined': { next: 'CANCELLED', reason: 'payment_declined', emit: 'order.cancelled' },
    'stock.reserved': { next: 'CONFIRMED', emit: 'order.confirmed' },
    'stock.rejected': { next: 'CANCELLED', reason: 'out_of_stock', emit: 'order.cancelled' },
  },
  CONFIRMED: Object.fromEntries(SagaEventTypes.map((type) => [type, { next: 'CONFIRMED' }])) as Record<
    SagaEventType,
    Transition
  >,
  CANCELLED: Object.fromEntries(SagaEventTypes.map((type) => [type, { next: 'CANCELLED' }])) as Record<
    SagaEventType,
    Transition
  >,
};

const pairs = Object.values(OrderStatus).flatMap((status) =>
  SagaEventTypes.map((event) => [status, event, expected[status][event]] as const),
);

describe('order state machine', () => {
  it('covers all 15 (status, event) pairs', () => {
    expect(pairs).toHaveLength(15);
  });

  it.each(pairs)('%s + %s', (status, event, outcome) => {
    expect(transition(status, event)).toEqual(outcome);
  });

  it('reaches the same final state whatever the interleaving of one order’s events', () => {
    const run = (events: readonly SagaEventType[]) =>
      events.reduce<OrderStatus>((status, event) => transition(status, event).next, 'PENDING');
    expect(run(['payment.authorized', 'stock.reserved'])).toBe('CONFIRMED');
    expect(run(['stock.reserved', 'payment.authorized'])).toBe('CONFIRMED');
    expect(run(['payment.authorized', 'stock.rejected', 'payment.refunded'])).toBe('CANCELLED');
    expect(run(['payment.refunded', 'payment.authorized', 'stock.rejected'])).toBe('CANCELLED');
    expect(run(['payment.declined', 'stock.reserved'])).toBe('CANCELLED');
  });
});
