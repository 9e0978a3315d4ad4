import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { PaymentDeclinedEvent, type PaymentDeclinedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { applySagaEvent } from '../saga/apply-saga-event';

/** The payment was declined: a PENDING order becomes CANCELLED (payment_declined), order.cancelled is published. */
@Controller()
export class CancelOrderWhenPaymentDeclined {
  @EventPattern(PaymentDeclinedEvent.type)
  async handle(
    @Payload() event: PaymentDeclinedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await applySagaEvent(ctx, event.orderId, PaymentDeclinedEvent.type);
  }
}
