import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { PaymentConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

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
        }),
      ],
    };
  }
}
