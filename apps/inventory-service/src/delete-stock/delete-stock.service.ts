import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { outboxCommitted, writeToOutbox } from '@pipeline/messaging';
import { sqlOverPrisma } from '@pipeline/database';
import { DATABASE } from '@pipeline/service-kit';
import type { PrismaClient } from '../generated/prisma/client';
import { INVENTORY_SOURCE } from '../stock/inventory-source';
import { stockTombstone } from '../stock/stock-level';

@Injectable()
export class DeleteStockService {
  constructor(@Inject(DATABASE) private readonly db: PrismaClient) {}

  /**
   * Removes a SKU and publishes its tombstone in the same transaction; false when it was unknown.
   * Units still reserved go with it: the orders that hold them are already confirmed.
   */
  async delete(sku: string): Promise<boolean> {
    const deleted = await this.db.$transaction(async (tx) => {
      const { count } = await tx.stock.deleteMany({ where: { sku } });
      if (count === 0) return false;
      await writeToOutbox(sqlOverPrisma(tx), [{ ...stockTombstone(sku), correlationId: randomUUID() }], {
        source: INVENTORY_SOURCE,
      });
      return true;
    });
    if (deleted) outboxCommitted(INVENTORY_SOURCE);
    return deleted;
  }
}
