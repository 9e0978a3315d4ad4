import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { outboxCommitted, writeToOutbox } from '@pipeline/messaging';
import { sqlOverPrisma } from '@pipeline/database';
import { DATABASE } from '@pipeline/service-kit';
import type { PrismaClient } from '../generated/prisma/client';
import { INVENTORY_SOURCE } from '../stock/inventory-source';
import {
  STOCK_COLUMNS,
  stockChanged,
  toStockLevel,
  type StockLevel,
  type StockRow,
} from '../stock/stock-level';

export interface SetStockResult {
  readonly level: StockLevel;
  /** The SKU did not exist before. */
  readonly created: boolean;
}

@Injectable()
export class SetStockService {
  constructor(@Inject(DATABASE) private readonly db: PrismaClient) {}

  /**
   * Sets a SKU's available units (creating the SKU if needed); reserved units are untouched. The
   * row and its `stock.changed` record commit together, so the changelog never misses a change.
   */
  async set(sku: string, available: number): Promise<SetStockResult> {
    const result = await this.db.$transaction(async (tx) => {
      // xmax = 0 only on a freshly inserted row: tells a create from an update in one statement.
      const [row] = await tx.$queryRawUnsafe<(StockRow & { created: boolean })[]>(
        `INSERT INTO stock (sku, available, reserved, updated_at) VALUES ($1, $2, 0, now())
         ON CONFLICT (sku) DO UPDATE SET available = EXCLUDED.available, updated_at = now()
         RETURNING ${STOCK_COLUMNS}, (xmax = 0) AS created`,
        sku,
        available,
      );
      if (row === undefined) throw new Error(`upsert of SKU "${sku}" returned no row`);
      const level = toStockLevel(row);
      await writeToOutbox(sqlOverPrisma(tx), [{ ...stockChanged(level), correlationId: randomUUID() }], {
        source: INVENTORY_SOURCE,
      });
      return { level, created: row.created };
    });
    outboxCommitted(INVENTORY_SOURCE);
    return result;
  }
}
