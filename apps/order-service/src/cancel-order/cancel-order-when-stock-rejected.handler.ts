import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { StockRejectedEvent, type StockRejectedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { applySagaEvent } from '../saga/apply-saga-event';

/** Stock is missing: a PENDING order becomes CANCELLED (out_of_stock), order.cancelled is published. */
@Controller()
export class CancelOrderWhenStockRejected {
  @EventPattern(StockRejectedEvent.type)
  async handle(
    @Payload() event: StockRejectedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await applySagaEvent(ctx, event.orderId, StockRejectedEvent.type);
  }
}
