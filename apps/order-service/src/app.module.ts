import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { OrderConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

@Module({})
export class AppModule {
  static forConfig(config: OrderConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: 'order',
          config,
          prismaClient: PrismaClient,
        }),
      ],
    };
  }
}
