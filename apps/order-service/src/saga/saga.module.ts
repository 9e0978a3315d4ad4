import { Module } from '@nestjs/common';
import { AdvanceOrderWhenPaymentOrStockDecided } from './advance-order-when-payment-or-stock-decided.handler';

/** The saga's side of order-service: payment and stock decisions move the order on. */
// Event handlers are controllers in Nest: @EventPattern routes are registered from them.
@Module({ controllers: [AdvanceOrderWhenPaymentOrStockDecided] })
export class SagaModule {}
