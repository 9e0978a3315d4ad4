import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { OrderCancelledEvent, type OrderCancelledPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { WindowCounter } from './window-counter';

/** Counts a cancellation in the customer's window of the event's time. */
@Controller()
export class CountOrderWhenOrderCancelled {
  constructor(private readonly counter: WindowCounter) {}

  @EventPattern(OrderCancelledEvent.type)
  async handle(
    @Payload() order: OrderCancelledPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await this.counter.count(ctx, order.customerId, { cancelled: 1 });
  }
}
