import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { AnalyticsConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

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
        }),
      ],
    };
  }
}
