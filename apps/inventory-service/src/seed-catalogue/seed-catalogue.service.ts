import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DEMO_CATALOGUE } from '@pipeline/contracts';
import { outboxCommitted, writeToOutbox } from '@pipeline/messaging';
import { sqlOverPrisma } from '@pipeline/database';
import { DATABASE } from '@pipeline/service-kit';
import type { PrismaClient } from '../generated/prisma/client';
import { INVENTORY_SOURCE } from '../stock/inventory-source';
import { STOCK_COLUMNS, stockChanged, toStockLevel, type StockRow } from '../stock/stock-level';

/**
 * Seeds the demo catalogue at start-up. Idempotent: rows that exist are left as they are
 * (ON CONFLICT DO NOTHING), so a restart never resets stock, and only the rows this start
 * inserted get a `stock.changed` record. Several instances starting at once are safe: each SKU
 * is inserted (and announced) by exactly one of them. A SKU deleted over HTTP comes back on the
 * next start.
 */
@Injectable()
export class SeedDemoCatalogue implements OnApplicationBootstrap {
  private readonly logger = new Logger(SeedDemoCatalogue.name);

  constructor(@Inject(DATABASE) private readonly db: PrismaClient) {}

  async onApplicationBootstrap(): Promise<void> {
    const inserted = await this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<StockRow[]>(
        `INSERT INTO stock (sku, available, reserved, updated_at)
         SELECT sku, available, 0, now() FROM unnest($1::text[], $2::int[]) AS seed(sku, available)
         ON CONFLICT (sku) DO NOTHING
         RETURNING ${STOCK_COLUMNS}`,
        DEMO_CATALOGUE.map((item) => item.sku),
        DEMO_CATALOGUE.map((item) => item.available),
      );
      const correlationId = randomUUID();
      await writeToOutbox(
        sqlOverPrisma(tx),
        rows.map((row) => ({ ...stockChanged(toStockLevel(row)), correlationId })),
        { source: INVENTORY_SOURCE },
      );
      return rows.length;
    });
    if (inserted === 0) return;
    outboxCommitted(INVENTORY_SOURCE);
    this.logger.log(`seeded ${inserted} SKU(s) of the demo catalogue`);
  }
}
