import { Module } from '@nestjs/common';
import { RefundPaymentWhenStockRejected } from './refund-payment-when-stock-rejected.handler';

@Module({ controllers: [RefundPaymentWhenStockRejected] })
export class RefundPaymentModule {}
