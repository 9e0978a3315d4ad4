import type { Prisma } from '../generated/prisma/client';
import { STOCK_COLUMNS, type StockRow } from '../stock/stock-level';
import type { StockLine } from './reserve-stock.policy';

/**
 * Locks the SKUs' rows until the transaction ends and returns them. Every reservation locks in
 * the same (code-point) SKU order, so two orders sharing SKUs queue behind each other instead
 * of deadlocking, and each sees the other's committed counts: stock cannot be sold twice.
 */
export function lockStock(tx: Prisma.TransactionClient, skus: readonly string[]): Promise<StockRow[]> {
  return tx.$queryRawUnsafe<StockRow[]>(
    `SELECT ${STOCK_COLUMNS} FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku COLLATE "C" FOR UPDATE`,
    skus,
  );
}

/** Moves the lines' units from `available` to `reserved` (rows already locked), in one statement. */
export function moveToReserved(
  tx: Prisma.TransactionClient,
  lines: readonly StockLine[],
): Promise<StockRow[]> {
  return tx.$queryRawUnsafe<StockRow[]>(
    `UPDATE stock AS s
        SET available = s.available - l.quantity, reserved = s.reserved + l.quantity, updated_at = now()
       FROM unnest($1::text[], $2::int[]) AS l(sku, quantity)
      WHERE s.sku = l.sku
  RETURNING s.sku, s.available, s.reserved, s.updated_at`,
    lines.map((line) => line.sku),
    lines.map((line) => line.quantity),
  );
}
