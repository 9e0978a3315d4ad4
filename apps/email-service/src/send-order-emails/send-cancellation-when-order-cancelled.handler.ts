import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { OrderCancelledEvent, type OrderCancelledPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import { cancellationEmail } from './order-email.template';
import { SMTP_POOL_CONNECTIONS } from '../mail/smtp.options';
import { SendOnce } from './send-once';

/** One cancellation email per `order.cancelled`, with the reason in words. */
@Controller()
export class SendCancellationWhenOrderCancelled {
  constructor(private readonly sendOnce: SendOnce) {}

  // Sends of different orders overlap, one per pooled SMTP connection.
  @EventPattern(OrderCancelledEvent.type, { concurrency: SMTP_POOL_CONNECTIONS })
  async handle(@Payload() order: OrderCancelledPayload, @Ctx() ctx: EventContext): Promise<void> {
    await this.sendOnce.send(ctx, {
      kind: 'CANCELLATION',
      orderId: order.orderId,
      email: cancellationEmail(ctx.metadata.id, order, order.reason),
    });
  }
}
