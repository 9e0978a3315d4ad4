import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { StockReservedEvent, type StockReservedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { applySagaEvent } from '../saga/apply-saga-event';

/** Every item is reserved: a PENDING order becomes CONFIRMED and order.confirmed is published. */
@Controller()
export class ConfirmOrderWhenStockReserved {
  @EventPattern(StockReservedEvent.type)
  async handle(
    @Payload() event: StockReservedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await applySagaEvent(ctx, event.orderId, StockReservedEvent.type);
  }
}
