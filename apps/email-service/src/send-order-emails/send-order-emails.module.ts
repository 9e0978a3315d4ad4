import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { SendCancellationWhenOrderCancelled } from './send-cancellation-when-order-cancelled.handler';
import { SendConfirmationWhenOrderConfirmed } from './send-confirmation-when-order-confirmed.handler';
import { SendOnce } from './send-once';

@Module({
  imports: [MailModule],
  controllers: [SendConfirmationWhenOrderConfirmed, SendCancellationWhenOrderCancelled],
  providers: [SendOnce],
})
export class SendOrderEmailsModule {}
