import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { InventoryConfig } from './config';
import { DeleteStockModule } from './delete-stock/delete-stock.module';
import { PrismaClient } from './generated/prisma/client';
import { GetStockModule } from './get-stock/get-stock.module';
import { ReserveStockModule } from './reserve-stock/reserve-stock.module';
import { SeedCatalogueModule } from './seed-catalogue/seed-catalogue.module';
import { SetStockModule } from './set-stock/set-stock.module';

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
          consumes: [Topics.payments],
        }),
        // One feature module per use case.
        ReserveStockModule,
        GetStockModule,
        SetStockModule,
        DeleteStockModule,
        SeedCatalogueModule,
      ],
    };
  }
}
