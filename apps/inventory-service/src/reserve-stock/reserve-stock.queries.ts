import type { Prisma } from '../generated/prisma/client';
import { STOCK_COLUMNS, type StockRow } from '../stock/stock-level';
import type { StockLine } from './reserve-stock.policy';

/** Key of the transaction-level advisory lock every reserving transaction holds (see below). */
export const RESERVE_STOCK_LOCK_KEY = 0x1e5e_7e;

/**
 * Makes reserving transactions take turns. A transaction reserves a whole chunk of orders one by
 * one, so it locks SKU rows in per-order sorted runs, not in one global order: two chunks sharing
 * SKUs would deadlock (and roll back a whole chunk) instead of queueing. They serialise on the
 * hot SKU rows anyway; this lock makes them queue at the door, once per transaction.
 */
export async function takeReservationTurn(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock($1)', RESERVE_STOCK_LOCK_KEY);
}

/**
 * Locks the SKUs' rows until the transaction ends and returns them, in code-point SKU order, so
 * each reservation sees the other writers' (e.g. `PUT /inventory`) committed counts.
 */
export function lockStock(tx: Prisma.TransactionClient, skus: readonly string[]): Promise<StockRow[]> {
  return tx.$queryRawUnsafe<StockRow[]>(
    `SELECT ${STOCK_COLUMNS} FROM stock WHERE sku = ANY($1::text[]) ORDER BY sku COLLATE "C" FOR UPDATE`,
    skus,
  );
}

/**
 * Claims the order (one reservation row per order, whatever is redelivered) as RESERVED and moves
 * the lines' units from `available` to `reserved` (rows already locked), in one statement. Returns
 * the changed rows; none when the order was already claimed, which then changes nothing.
 */
export function claimAndReserve(
  tx: Prisma.TransactionClient,
  orderId: string,
  lines: readonly StockLine[],
): Promise<StockRow[]> {
  return tx.$queryRawUnsafe<StockRow[]>(
    `WITH claim AS (
       INSERT INTO reservations (order_id, items, status)
       VALUES ($1::uuid, $2::jsonb, 'RESERVED')
       ON CONFLICT (order_id) DO NOTHING
       RETURNING order_id)
     UPDATE stock AS s
        SET available = s.available - l.quantity, reserved = s.reserved + l.quantity, updated_at = now()
       FROM unnest($3::text[], $4::int[]) AS l(sku, quantity)
      WHERE s.sku = l.sku AND EXISTS (SELECT 1 FROM claim)
  RETURNING s.sku, s.available, s.reserved, s.updated_at`,
    orderId,
    JSON.stringify(lines),
    lines.map((line) => line.sku),
    lines.map((line) => line.quantity),
  );
}

/** Claims the order as REJECTED; false when it was already claimed. */
export async function claimRejected(
  tx: Prisma.TransactionClient,
  orderId: string,
  lines: readonly StockLine[],
): Promise<boolean> {
  const { count } = await tx.reservation.createMany({
    data: { orderId, items: lines.map((line) => ({ ...line })), status: 'REJECTED' },
    skipDuplicates: true,
  });
  return count > 0;
}
