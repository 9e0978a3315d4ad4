import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { InventoryConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

@Module({})
export class AppModule {
  static forConfig(config: InventoryConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: 'inventory',
          config,
          prismaClient: PrismaClient,
        }),
      ],
    };
  }
}
