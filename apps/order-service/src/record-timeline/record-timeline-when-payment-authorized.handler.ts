import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { PaymentAuthorizedEvent, type PaymentAuthorizedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { applySagaEvent } from '../saga/apply-saga-event';

/** The payment was authorized: a timeline entry only; the stock reservation decides the outcome. */
@Controller()
export class RecordTimelineWhenPaymentAuthorized {
  @EventPattern(PaymentAuthorizedEvent.type)
  async handle(
    @Payload() event: PaymentAuthorizedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await applySagaEvent(ctx, event.orderId, PaymentAuthorizedEvent.type);
  }
}
