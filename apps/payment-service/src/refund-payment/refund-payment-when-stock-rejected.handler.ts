import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  PaymentRefundedEvent,
  StockRejectedEvent,
  Topics,
  type PaymentRefundedPayload,
  type StockRejectedPayload,
} from '@pipeline/contracts';
import { EventBatchPattern, FatalError, type ConsumedEvent, type EventBatch } from '@pipeline/messaging';
import type { PaymentStatus } from '../generated/prisma/client';
import { decideRefund } from './refund-payment.policy';

interface LockedPayment {
  readonly id: string;
  readonly order_id: string;
  readonly status: PaymentStatus;
  /** numeric(12,2) as text: exact, always 2 places. */
  readonly amount: string;
  readonly currency: string;
}

// FOR UPDATE, in one order: two deliveries of a rejection for the same order (different event
// ids, in this batch or a concurrent one) are serialised, and the second sees REFUNDED.
const LOCK_PAYMENTS = `
  SELECT id::text AS id, order_id::text AS order_id, status::text AS status, amount::text AS amount, currency
    FROM payments WHERE order_id = ANY($1::uuid[]) ORDER BY order_id FOR UPDATE`;

const REFUND = `
  UPDATE payments AS p SET status = 'REFUNDED', reason = r.reason, updated_at = now()
    FROM unnest($1::uuid[], $2::text[]) AS r(id, reason)
   WHERE p.id = r.id
  RETURNING p.id::text AS id, p.updated_at`;

/** Compensates the payment step when inventory could not reserve the order's items. */
@Controller()
export class RefundPaymentWhenStockRejected {
  @EventBatchPattern(StockRejectedEvent.type)
  async handle(
    @Payload() events: readonly ConsumedEvent<StockRejectedPayload>[],
    @Ctx() batch: EventBatch,
  ): Promise<void> {
    const locked = await batch.sql.query<LockedPayment>(LOCK_PAYMENTS, [
      events.map((event) => event.payload.orderId),
    ]);
    const byOrder = new Map(locked.map((payment) => [payment.order_id, payment]));
    const refunds: { event: ConsumedEvent<StockRejectedPayload>; payment: LockedPayment }[] = [];
    for (const event of events) {
      // Postgres prints uuids in lower case; the contract allows either.
      const payment = byOrder.get(event.payload.orderId.toLowerCase());
      const decision = decideRefund(event.payload.orderId, payment?.status);
      if (decision.action === 'fail') throw new FatalError(decision.message, { code: decision.code });
      if (decision.action === 'none' || payment === undefined) continue;
      refunds.push({ event, payment });
      // A second rejection of the same order later in this batch finds it refunded.
      byOrder.set(payment.order_id, { ...payment, status: 'REFUNDED' });
    }
    if (refunds.length === 0) return;
    const updated = await batch.sql.query<{ id: string; updated_at: Date }>(REFUND, [
      refunds.map((r) => r.payment.id),
      refunds.map((r) => r.event.payload.reason),
    ]);
    const refundedAt = new Map(updated.map((row) => [row.id, row.updated_at]));
    for (const { event, payment } of refunds) {
      const payload: PaymentRefundedPayload = {
        orderId: event.payload.orderId,
        paymentId: payment.id,
        amount: payment.amount,
        currency: payment.currency,
        reason: event.payload.reason,
        refundedAt: (refundedAt.get(payment.id) ?? new Date()).toISOString(),
      };
      batch.publish(event, {
        topic: Topics.payments,
        key: event.payload.orderId,
        type: PaymentRefundedEvent.type,
        payload,
      });
    }
  }
}
