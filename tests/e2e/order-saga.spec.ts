import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeadLetterHeaders,
  deadLetterTopic,
  EventHeaders,
  OrderCancelledPayloadSchema,
  OrderConfirmedPayloadSchema,
  PaymentAuthorizedPayloadSchema,
  PaymentDeclinedPayloadSchema,
  PaymentRefundedPayloadSchema,
  StockRejectedPayloadSchema,
  StockReservedPayloadSchema,
  Topics,
} from '@pipeline/contracts';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { header, OrderServiceUnderTest, type ReadRecord } from './order-service.harness';

interface OrderBody {
  status: string;
  reason: string | null;
  timeline: { type: string; at: string }[];
}

const items = [{ sku: 'SKU-1', quantity: 2, unitPrice: '5.25' }];
const now = () => new Date().toISOString();

describe('order-service saga: payments and inventory events drive the order', () => {
  let svc: OrderServiceUnderTest;
  beforeAll(async () => {
    svc = await OrderServiceUnderTest.start('e2e.order.saga');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const place = async (): Promise<string> => {
    const answer = await svc.request<{ orderId: string }>('POST', '/orders', {
      customerId: uniqueName('saga'),
      customerEmail: 'grace@example.com',
      items,
    });
    expect(answer.status).toBe(202);
    return answer.body.orderId;
  };
  const authorized = (orderId: string) => ({
    topic: 'payments' as const,
    type: 'payment.authorized',
    orderId,
    payload: PaymentAuthorizedPayloadSchema.parse({
      orderId,
      paymentId: randomUUID(),
      customerId: 'c',
      amount: '10.50',
      currency: 'EUR',
      items,
      authorizedAt: now(),
    }),
  });
  const declined = (orderId: string) => ({
    topic: 'payments' as const,
    type: 'payment.declined',
    orderId,
    payload: PaymentDeclinedPayloadSchema.parse({
      orderId,
      amount: '10.50',
      currency: 'EUR',
      reason: 'customer_blocked',
      declinedAt: now(),
    }),
  });
  const refunded = (orderId: string) => ({
    topic: 'payments' as const,
    type: 'payment.refunded',
    orderId,
    payload: PaymentRefundedPayloadSchema.parse({
      orderId,
      paymentId: randomUUID(),
      amount: '10.50',
      currency: 'EUR',
      reason: 'out_of_stock',
      refundedAt: now(),
    }),
  });
  const reserved = (orderId: string, id?: string) => ({
    topic: 'inventory' as const,
    type: 'stock.reserved',
    orderId,
    payload: StockReservedPayloadSchema.parse({
      orderId,
      items: [{ sku: 'SKU-1', quantity: 2 }],
      reservedAt: now(),
    }),
    ...(id === undefined ? {} : { id }),
  });
  const rejected = (orderId: string) => ({
    topic: 'inventory' as const,
    type: 'stock.rejected',
    orderId,
    payload: StockRejectedPayloadSchema.parse({
      orderId,
      missingSkus: ['SKU-1'],
      reason: 'out_of_stock',
      rejectedAt: now(),
    }),
  });

  /** Waits until the order's timeline has `count` entries, then returns the order. */
  const orderAfter = (orderId: string, count: number) =>
    eventually(
      async () => {
        const { body } = await svc.request<OrderBody>('GET', `/orders/${orderId}`);
        return body.timeline.length >= count ? body : undefined;
      },
      { what: `${count} timeline entries of ${orderId}` },
    );
  const outcomes = async (orderId: string): Promise<ReadRecord[]> => {
    await svc.outboxDrained();
    return (await svc.records(Topics.orders, orderId)).filter(
      (record) => header(record, EventHeaders.type) !== 'order.placed',
    );
  };

  it('payment.authorized then stock.reserved: CONFIRMED and one order.confirmed', async () => {
    const orderId = await place();
    await svc.send(authorized(orderId));
    const cause = await svc.send(reserved(orderId));
    const order = await orderAfter(orderId, 4);
    expect(order.status).toBe('CONFIRMED');
    expect(order.reason).toBeNull();
    expect(order.timeline.map((entry) => entry.type)).toEqual([
      'order.placed',
      'payment.authorized',
      'stock.reserved',
      'order.confirmed',
    ]);

    const [confirmed, ...more] = await outcomes(orderId);
    expect(more).toHaveLength(0);
    expect(confirmed!.key).toBe(orderId);
    expect(header(confirmed!, EventHeaders.type)).toBe('order.confirmed');
    expect(header(confirmed!, EventHeaders.source)).toBe('order-service');
    expect(header(confirmed!, EventHeaders.correlationId)).toBe(orderId);
    expect(header(confirmed!, EventHeaders.causationId)).toBe(cause);
    expect(OrderConfirmedPayloadSchema.parse(confirmed!.payload)).toMatchObject({
      orderId,
      total: '10.50',
      items,
      customerEmail: 'grace@example.com',
    });
  });

  it('payment.declined: CANCELLED (payment_declined); a later stock.reserved keeps it CANCELLED', async () => {
    const orderId = await place();
    await svc.send(declined(orderId));
    const cancelled = await orderAfter(orderId, 3);
    expect(cancelled).toMatchObject({ status: 'CANCELLED', reason: 'payment_declined' });

    await svc.send(reserved(orderId));
    const after = await orderAfter(orderId, 4);
    expect(after).toMatchObject({ status: 'CANCELLED', reason: 'payment_declined' });
    expect(after.timeline.map((entry) => entry.type)).toEqual([
      'order.placed',
      'payment.declined',
      'order.cancelled',
      'stock.reserved',
    ]);
    const published = await outcomes(orderId);
    expect(published.map((record) => header(record, EventHeaders.type))).toEqual(['order.cancelled']);
    expect(OrderCancelledPayloadSchema.parse(published[0]!.payload).reason).toBe('payment_declined');
  });

  it('stock.rejected after payment.authorized: CANCELLED (out_of_stock); the refund only adds to the timeline', async () => {
    const orderId = await place();
    await svc.send(authorized(orderId));
    await orderAfter(orderId, 2);
    await svc.send(rejected(orderId));
    expect(await orderAfter(orderId, 4)).toMatchObject({ status: 'CANCELLED', reason: 'out_of_stock' });
    await svc.send(refunded(orderId));
    const after = await orderAfter(orderId, 5);
    expect(after.timeline.map((entry) => entry.type)).toEqual([
      'order.placed',
      'payment.authorized',
      'stock.rejected',
      'order.cancelled',
      'payment.refunded',
    ]);
    const published = await outcomes(orderId);
    expect(published).toHaveLength(1);
    expect(OrderCancelledPayloadSchema.parse(published[0]!.payload).reason).toBe('out_of_stock');
  });

  it('a redelivered event (same ce_id) changes nothing', async () => {
    const orderId = await place();
    const id = randomUUID();
    await svc.send(reserved(orderId, id));
    await orderAfter(orderId, 3);
    await svc.send(reserved(orderId, id));
    // A later event on the same topic and key (same partition) proves the duplicate was consumed.
    await svc.send(rejected(orderId));
    const order = await orderAfter(orderId, 4);
    expect(order.status).toBe('CONFIRMED');
    expect(order.timeline.map((entry) => entry.type)).toEqual([
      'order.placed',
      'stock.reserved',
      'order.confirmed',
      'stock.rejected',
    ]);
    expect((await outcomes(orderId)).map((record) => header(record, EventHeaders.type))).toEqual([
      'order.confirmed',
    ]);
  });

  it('a decision re-published under a new ce_id cancels once, whether or not both share a batch', async () => {
    const orderId = await place();
    await Promise.all([svc.send(declined(orderId)), svc.send(declined(orderId))]);
    const order = await orderAfter(orderId, 4);
    expect(order).toMatchObject({ status: 'CANCELLED', reason: 'payment_declined' });
    // In event-time order: both declines were stamped before order-service processed either.
    expect(order.timeline.map((entry) => entry.type)).toEqual([
      'order.placed',
      'payment.declined',
      'payment.declined',
      'order.cancelled',
    ]);
    expect((await outcomes(orderId)).map((record) => header(record, EventHeaders.type))).toEqual([
      'order.cancelled',
    ]);
  });

  it('an event for an unknown order is dead-lettered with a clear reason', async () => {
    const orderId = randomUUID();
    await svc.send(reserved(orderId));
    const letter = await eventually(async () => (await svc.records(deadLetterTopic('order'), orderId))[0], {
      what: 'the dead letter of the unknown order',
    });
    expect(header(letter, DeadLetterHeaders.errorClass)).toBe('fatal');
    expect(header(letter, DeadLetterHeaders.error)).toMatch(`order ${orderId} does not exist`);
  });
});
