import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { OrderConfirmedEvent, type OrderConfirmedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { WindowCounter } from './window-counter';

/** Counts a confirmation and its revenue in the customer's window of the event's time. */
@Controller()
export class CountOrderWhenOrderConfirmed {
  constructor(private readonly counter: WindowCounter) {}

  @EventPattern(OrderConfirmedEvent.type)
  async handle(
    @Payload() order: OrderConfirmedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    await this.counter.count(ctx, order.customerId, { confirmed: 1, revenue: order.total });
  }
}
