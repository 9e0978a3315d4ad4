import { Module } from '@nestjs/common';
import { AuthorizePaymentWhenOrderPlaced } from './authorize-payment-when-order-placed.handler';

// Event handlers are controllers in Nest: @EventPattern routes are registered from them.
@Module({ controllers: [AuthorizePaymentWhenOrderPlaced] })
export class AuthorizePaymentModule {}
