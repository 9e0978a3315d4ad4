import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import { AuthorizePaymentModule } from './authorize-payment/authorize-payment.module';
import type { PaymentConfig } from './config';
import { PrismaClient } from './generated/prisma/client';
import { RefundPaymentModule } from './refund-payment/refund-payment.module';

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
        // One feature module per use case.
        AuthorizePaymentModule,
        RefundPaymentModule,
      ],
    };
  }
}
