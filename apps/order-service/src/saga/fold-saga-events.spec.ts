import { describe, expect, it } from 'vitest';
import type { OrderStatus } from '../generated/prisma/enums';
import { transition, type SagaEventType } from '../orders/order-state';
import { foldSagaEvents, isSagaEventType, type SagaInput } from './fold-saga-events';

const event = (orderId: string, type: SagaEventType): SagaInput => ({ orderId, type });
const locked =
  (statuses: Record<string, OrderStatus>) =>
  ({ orderId }: SagaInput): OrderStatus => {
    const status = statuses[orderId];
    if (status === undefined) throw new Error(`unknown order ${orderId}`);
    return status;
  };

/** The reference: each event applied on its own, reading the status the previous one left. */
function oneByOne(events: readonly SagaInput[], statuses: Record<string, OrderStatus>) {
  const current = { ...statuses };
  return events.map((input) => {
    const step = transition(current[input.orderId]!, input.type);
    current[input.orderId] = step.next;
    return step;
  });
}

describe('foldSagaEvents', () => {
  it('lets a re-published payment.declined see the first one’s outcome: one cancellation', () => {
    const events = [event('a', 'payment.declined'), event('a', 'payment.declined')];
    const steps = foldSagaEvents(events, locked({ a: 'PENDING' }));
    expect(steps.map((s) => s.step)).toEqual([
      { next: 'CANCELLED', reason: 'payment_declined', emit: 'order.cancelled' },
      { next: 'CANCELLED' },
    ]);
    expect(steps.map((s) => s.event)).toEqual(events);
  });

  it('applies interleaved orders independently, in list order', () => {
    const events = [
      event('a', 'payment.authorized'),
      event('b', 'stock.rejected'),
      event('a', 'stock.reserved'),
      event('b', 'payment.refunded'),
      event('a', 'stock.rejected'),
    ];
    expect(foldSagaEvents(events, locked({ a: 'PENDING', b: 'PENDING' })).map((s) => s.step)).toEqual([
      { next: 'PENDING' },
      { next: 'CANCELLED', reason: 'out_of_stock', emit: 'order.cancelled' },
      { next: 'CONFIRMED', emit: 'order.confirmed' },
      { next: 'CANCELLED' },
      { next: 'CONFIRMED' },
    ]);
  });

  it('starts from the locked status: an order already terminal emits nothing', () => {
    const steps = foldSagaEvents([event('a', 'stock.reserved')], locked({ a: 'CANCELLED' }));
    expect(steps.map((s) => s.step)).toEqual([{ next: 'CANCELLED' }]);
  });

  it('reads each order’s locked status once and fails on an unknown order', () => {
    const reads: string[] = [];
    const statusOf = (input: SagaInput): OrderStatus => {
      reads.push(input.orderId);
      return locked({ a: 'PENDING' })(input);
    };
    foldSagaEvents([event('a', 'payment.authorized'), event('a', 'stock.reserved')], statusOf);
    expect(reads).toEqual(['a']);
    expect(() =>
      foldSagaEvents([event('a', 'payment.authorized'), event('x', 'stock.reserved')], statusOf),
    ).toThrow('unknown order x');
  });

  it('equals applying the events one by one, for every sequence of three events over two orders', () => {
    const types: SagaEventType[] = [
      'payment.authorized',
      'payment.declined',
      'payment.refunded',
      'stock.reserved',
      'stock.rejected',
    ];
    const all = ['a', 'b'].flatMap((orderId) => types.map((type) => event(orderId, type)));
    const statuses: Record<string, OrderStatus> = { a: 'PENDING', b: 'CONFIRMED' };
    let sequences = 0;
    for (const first of all)
      for (const second of all)
        for (const third of all) {
          const events = [first, second, third];
          const steps = foldSagaEvents(events, locked(statuses)).map((s) => s.step);
          expect(steps).toEqual(oneByOne(events, statuses));
          const emitted = steps.filter((s) => s.emit !== undefined).length;
          expect(emitted).toBeLessThanOrEqual(1);
          sequences += 1;
        }
    expect(sequences).toBe(1000);
  });

  it('tells saga event types from others', () => {
    expect(isSagaEventType('stock.reserved')).toBe(true);
    expect(isSagaEventType('order.placed')).toBe(false);
  });
});
