import { Controller, Get, Inject, NotFoundException, Param } from '@nestjs/common';
import { DATABASE } from '@pipeline/service-kit';
import type { PrismaClient } from '../generated/prisma/client';
import type { StockLevel } from '../stock/stock-level';

@Controller('inventory')
export class GetStockController {
  constructor(@Inject(DATABASE) private readonly db: PrismaClient) {}

  /** `{ sku, available, reserved, updatedAt }`; a reservation moves units from available to reserved. */
  @Get(':sku')
  async get(@Param('sku') sku: string): Promise<StockLevel> {
    const stock = await this.db.stock.findUnique({ where: { sku } });
    if (stock === null) throw new NotFoundException(`unknown SKU "${sku}"`);
    return {
      sku: stock.sku,
      available: stock.available,
      reserved: stock.reserved,
      updatedAt: stock.updatedAt.toISOString(),
    };
  }
}
