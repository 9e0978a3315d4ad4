import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  OrderPlacedEvent,
  PaymentAuthorizedEvent,
  PaymentDeclinedEvent,
  Topics,
  type OrderPlacedPayload,
  type PaymentAuthorizedPayload,
  type PaymentDeclinedPayload,
} from '@pipeline/contracts';
import { EventBatchPattern, type ConsumedEvent, type EventBatch } from '@pipeline/messaging';
import { decidePayment, type PaymentDecision } from './authorize-payment.policy';

// One statement for the whole batch. ON CONFLICT DO NOTHING on the unique order id: a redelivery,
// or the same order re-published under a new event id (also twice in one batch), inserts nothing
// and so publishes nothing; a concurrent duplicate waits on the index, then skips.
const INSERT_PAYMENTS = `
  INSERT INTO payments (id, order_id, customer_id, amount, currency, status, reason, created_at, updated_at)
  SELECT p.id, p.order_id, p.customer_id, p.amount, p.currency, p.status::payment_status, p.reason, now(), now()
    FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::numeric[], $5::text[], $6::text[], $7::text[])
      AS p(id, order_id, customer_id, amount, currency, status, reason)
  ON CONFLICT (order_id) DO NOTHING
  RETURNING id::text AS id, created_at`;

interface Decided {
  readonly event: ConsumedEvent<OrderPlacedPayload>;
  readonly paymentId: string;
  readonly decision: PaymentDecision;
}

/**
 * Starts the payment step of the saga: decide each order, record every payment of the batch in
 * one statement, publish each new payment's outcome, all in the batch's transaction. One payment
 * per order (`payments.order_id` is unique).
 */
@Controller()
export class AuthorizePaymentWhenOrderPlaced {
  @EventBatchPattern(OrderPlacedEvent.type)
  async handle(
    @Payload() events: readonly ConsumedEvent<OrderPlacedPayload>[],
    @Ctx() batch: EventBatch,
  ): Promise<void> {
    const decided: Decided[] = events.map((event) => ({
      event,
      paymentId: randomUUID(),
      decision: decidePayment(event.payload),
    }));
    const inserted = await batch.sql.query<{ id: string; created_at: Date }>(INSERT_PAYMENTS, [
      decided.map((d) => d.paymentId),
      decided.map((d) => d.event.payload.orderId),
      decided.map((d) => d.event.payload.customerId),
      decided.map((d) => d.event.payload.total),
      decided.map((d) => d.event.payload.currency),
      decided.map((d) => d.decision.status),
      decided.map((d) => (d.decision.status === 'DECLINED' ? d.decision.reason : null)),
    ]);
    const createdAt = new Map(inserted.map((row) => [row.id, row.created_at]));
    for (const { event, paymentId, decision } of decided) {
      const at = createdAt.get(paymentId);
      if (at !== undefined) batch.publish(event, outcome(event.payload, paymentId, decision, at));
    }
  }
}

function outcome(order: OrderPlacedPayload, paymentId: string, decision: PaymentDecision, at: Date) {
  const common = { topic: Topics.payments, key: order.orderId } as const;
  if (decision.status === 'AUTHORIZED') {
    const payload: PaymentAuthorizedPayload = {
      orderId: order.orderId,
      paymentId,
      customerId: order.customerId,
      amount: order.total,
      currency: order.currency,
      items: order.items,
      authorizedAt: at.toISOString(),
    };
    return { ...common, type: PaymentAuthorizedEvent.type, payload };
  }
  const payload: PaymentDeclinedPayload = {
    orderId: order.orderId,
    paymentId,
    amount: order.total,
    currency: order.currency,
    reason: decision.reason,
    declinedAt: at.toISOString(),
  };
  return { ...common, type: PaymentDeclinedEvent.type, payload };
}
