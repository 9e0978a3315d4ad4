import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { InventoryConfig } from './config';
import { DeleteStockController } from './delete-stock/delete-stock.controller';
import { DeleteStockService } from './delete-stock/delete-stock.service';
import { PrismaClient } from './generated/prisma/client';
import { GetStockController } from './get-stock/get-stock.controller';
import { ReserveStockWhenPaymentAuthorized } from './reserve-stock/reserve-stock-when-payment-authorized.handler';
import { SeedDemoCatalogue } from './seed-catalogue/seed-catalogue.provider';
import { SetStockController } from './set-stock/set-stock.controller';
import { SetStockService } from './set-stock/set-stock.service';

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
      ],
      // Event handlers are controllers in Nest: @EventPattern routes are registered from them.
      controllers: [
        ReserveStockWhenPaymentAuthorized,
        GetStockController,
        SetStockController,
        DeleteStockController,
      ],
      providers: [SetStockService, DeleteStockService, SeedDemoCatalogue],
    };
  }
}
