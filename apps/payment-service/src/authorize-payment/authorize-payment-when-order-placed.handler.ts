import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  OrderPlacedEvent,
  PaymentAuthorizedEvent,
  PaymentDeclinedEvent,
  Topics,
  type OrderPlacedPayload,
  type PaymentAuthorizedPayload,
  type PaymentDeclinedPayload,
} from '@pipeline/contracts';
import type { EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { decidePayment } from './authorize-payment.policy';

/**
 * Starts the payment step of the saga: decide, record the payment, publish the outcome, all in
 * the consumed event's transaction. One payment per order: `payments.order_id` is unique and the
 * insert skips a duplicate, so a redelivery, or the same order re-published under a new event
 * id, changes nothing and publishes nothing.
 */
@Controller()
export class AuthorizePaymentWhenOrderPlaced {
  @EventPattern(OrderPlacedEvent.type)
  async handle(
    @Payload() order: OrderPlacedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    const decision = decidePayment(order);
    const paymentId = randomUUID();
    const now = new Date();
    const { count } = await ctx.tx.payment.createMany({
      data: {
        id: paymentId,
        orderId: order.orderId,
        customerId: order.customerId,
        amount: order.total,
        currency: order.currency,
        status: decision.status,
        reason: decision.status === 'DECLINED' ? decision.reason : null,
        createdAt: now,
        updatedAt: now,
      },
      // ON CONFLICT DO NOTHING: a concurrent duplicate waits on the unique index, then skips.
      skipDuplicates: true,
    });
    if (count === 0) return;

    if (decision.status === 'AUTHORIZED') {
      const payload: PaymentAuthorizedPayload = {
        orderId: order.orderId,
        paymentId,
        customerId: order.customerId,
        amount: order.total,
        currency: order.currency,
        items: order.items,
        authorizedAt: now.toISOString(),
      };
      await ctx.publish({
        topic: Topics.payments,
        key: order.orderId,
        type: PaymentAuthorizedEvent.type,
        payload,
      });
    } else {
      const payload: PaymentDeclinedPayload = {
        orderId: order.orderId,
        paymentId,
        amount: order.total,
        currency: order.currency,
        reason: decision.reason,
        declinedAt: now.toISOString(),
      };
      await ctx.publish({
        topic: Topics.payments,
        key: order.orderId,
        type: PaymentDeclinedEvent.type,
        payload,
      });
    }
  }
}
