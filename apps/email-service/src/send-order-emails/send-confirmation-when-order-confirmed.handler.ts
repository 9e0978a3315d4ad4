import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { OrderConfirmedEvent, type OrderConfirmedPayload } from '@pipeline/contracts';
import { type EventContext } from '@pipeline/messaging';
import { confirmationEmail } from './order-email.template';
import { SMTP_POOL_CONNECTIONS } from '../mail/smtp.options';
import { SendOnce } from './send-once';

/** One confirmation email per `order.confirmed`, to the order's customerEmail. */
@Controller()
export class SendConfirmationWhenOrderConfirmed {
  constructor(private readonly sendOnce: SendOnce) {}

  // Sends of different orders overlap, one per pooled SMTP connection.
  @EventPattern(OrderConfirmedEvent.type, { concurrency: SMTP_POOL_CONNECTIONS })
  async handle(@Payload() order: OrderConfirmedPayload, @Ctx() ctx: EventContext): Promise<void> {
    await this.sendOnce.send(ctx, {
      kind: 'CONFIRMATION',
      orderId: order.orderId,
      email: confirmationEmail(ctx.metadata.id, order),
    });
  }
}
