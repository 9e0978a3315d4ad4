import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { AnalyticsConfig } from './config';
import { CountOrdersModule } from './count-orders/count-orders.module';
import { PrismaClient } from './generated/prisma/client';
import { QueryWindowsModule } from './query-windows/query-windows.module';

@Module({})
export class AppModule {
  static forConfig(config: AnalyticsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: 'analytics',
          config,
          prismaClient: PrismaClient,
          consumes: [Topics.orders],
        }),
        CountOrdersModule,
        QueryWindowsModule,
      ],
    };
  }
}
