import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { PaymentRefundedEvent, type PaymentRefundedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { applySagaEvent } from '../saga/apply-saga-event';

/** The payment was refunded (after stock.rejected): a timeline entry only. */
@Controller()
export class RecordTimelineWhenPaymentRefunded {
  @EventPattern(PaymentRefundedEvent.type)
  async handle(
    @Payload() event: PaymentRefundedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await applySagaEvent(ctx, event.orderId, PaymentRefundedEvent.type);
  }
}
