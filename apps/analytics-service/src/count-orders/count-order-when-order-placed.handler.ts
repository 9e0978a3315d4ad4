import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { OrderPlacedEvent, type OrderPlacedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { WindowCounter } from './window-counter';

/** Counts a placed order in the customer's window of the event's time. */
@Controller()
export class CountOrderWhenOrderPlaced {
  constructor(private readonly counter: WindowCounter) {}

  @EventPattern(OrderPlacedEvent.type)
  async handle(
    @Payload() order: OrderPlacedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await this.counter.count(ctx, order.customerId, { placed: 1 });
  }
}
