import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  PaymentRefundedEvent,
  StockRejectedEvent,
  Topics,
  type PaymentRefundedPayload,
  type StockRejectedPayload,
} from '@pipeline/contracts';
import { FatalError, type EventContext } from '@pipeline/messaging';
import type { PaymentStatus, Prisma } from '../generated/prisma/client';
import { decideRefund } from './refund-payment.policy';

interface LockedPayment {
  readonly id: string;
  readonly status: PaymentStatus;
  /** numeric(12,2) as text: exact, always 2 places. */
  readonly amount: string;
  readonly currency: string;
}

/** Compensates the payment step when inventory could not reserve the order's items. */
@Controller()
export class RefundPaymentWhenStockRejected {
  @EventPattern(StockRejectedEvent.type)
  async handle(
    @Payload() rejection: StockRejectedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    // FOR UPDATE: two deliveries of a rejection for the same order (different event ids) are
    // serialized here, and the second sees REFUNDED: one refund, one event.
    const [payment] = await ctx.tx.$queryRaw<LockedPayment[]>`
      SELECT id::text AS id, status::text AS status, amount::text AS amount, currency
      FROM payments WHERE order_id = ${rejection.orderId}::uuid FOR UPDATE`;
    const decision = decideRefund(rejection.orderId, payment?.status);
    if (decision.action === 'fail') throw new FatalError(decision.message, { code: decision.code });
    if (decision.action === 'none' || payment === undefined) return;

    const refunded = await ctx.tx.payment.update({
      where: { id: payment.id },
      data: { status: 'REFUNDED', reason: rejection.reason },
    });
    const payload: PaymentRefundedPayload = {
      orderId: rejection.orderId,
      paymentId: payment.id,
      amount: payment.amount,
      currency: payment.currency,
      reason: rejection.reason,
      refundedAt: refunded.updatedAt.toISOString(),
    };
    await ctx.publish({
      topic: Topics.payments,
      key: rejection.orderId,
      type: PaymentRefundedEvent.type,
      payload,
    });
  }
}
