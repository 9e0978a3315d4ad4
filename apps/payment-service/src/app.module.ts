import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import { AuthorizePaymentWhenOrderPlaced } from './authorize-payment/authorize-payment-when-order-placed.handler';
import type { PaymentConfig } from './config';
import { PrismaClient } from './generated/prisma/client';
import { RefundPaymentWhenStockRejected } from './refund-payment/refund-payment-when-stock-rejected.handler';

@Module({})
export class AppModule {
  static forConfig(config: PaymentConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: 'payment',
          config,
          prismaClient: PrismaClient,
          consumes: [Topics.orders, Topics.inventory],
        }),
      ],
      // Event handlers are controllers in Nest: @EventPattern routes are registered from them.
      controllers: [AuthorizePaymentWhenOrderPlaced, RefundPaymentWhenStockRejected],
    };
  }
}
