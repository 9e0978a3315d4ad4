import { Module } from '@nestjs/common';
import { ReserveStockWhenPaymentAuthorized } from './reserve-stock-when-payment-authorized.handler';

// Event handlers are controllers in Nest: @EventPattern routes are registered from them.
@Module({ controllers: [ReserveStockWhenPaymentAuthorized] })
export class ReserveStockModule {}
