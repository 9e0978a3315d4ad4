import type { Sql } from '@pipeline/database';
import { STOCK_COLUMNS, type StockRow } from '../stock/stock-level';
import type { StockLine } from './reserve-stock.policy';

/*
 * No advisory lock any more. It was there because a transaction reserved its orders one by one,
 * locking SKU rows in per-order sorted runs: two transactions sharing SKUs could lock them in
 * opposite orders and deadlock. Now a transaction locks every SKU of its batch in one statement,
 * in one global order (code points), before anything else touches `stock`, and later statements
 * write only rows it already holds. The other writers lock at most one row per transaction
 * (`PUT /inventory`, `DELETE /inventory`; the start-up seed only inserts missing rows), and a
 * second instance's batch locks in the same order: they queue on the hot rows instead of
 * deadlocking, and batches on disjoint SKUs run in parallel.
 * Reservation claims are inserted in order-id order, so two transactions claiming the same orders
 * (a rebalance redelivery) also wait for each other in one order.
 */

const LOCK_STOCK = `SELECT ${STOCK_COLUMNS} FROM stock
  WHERE sku = ANY($1::text[]) ORDER BY sku COLLATE "C" FOR UPDATE`;

const FIND_CLAIMED = `SELECT order_id::text AS order_id FROM reservations WHERE order_id = ANY($1::uuid[])`;

// One statement claims the orders and moves their stock. ON CONFLICT DO NOTHING: a claim made
// meanwhile by another transaction (it waits on the primary key until that one commits) comes back
// missing from `inserted`; the caller then rolls the whole transaction back, the stock move with
// it. An UPDATE ... FROM applies one joined row per target row, so the moves are summed per SKU.
// The outer join answers one row even when nothing moved (every order rejected): its stock
// columns are then null.
const CLAIM_AND_MOVE = `WITH claims AS (
    INSERT INTO reservations (order_id, items, status)
    SELECT c.order_id, c.items::jsonb, c.status::reservation_status
      FROM unnest($1::uuid[], $2::text[], $3::text[]) AS c(order_id, items, status)
     ORDER BY c.order_id
    ON CONFLICT (order_id) DO NOTHING
    RETURNING order_id::text AS order_id
  ), moved AS (
    UPDATE stock AS s
       SET available = s.available - m.quantity, reserved = s.reserved + m.quantity, updated_at = now()
      FROM unnest($4::text[], $5::int[]) AS m(sku, quantity)
     WHERE s.sku = m.sku
    RETURNING s.sku, s.available, s.reserved, s.updated_at
  )
  SELECT c.inserted, m.sku, m.available, m.reserved, m.updated_at
    FROM (SELECT coalesce(array_agg(order_id), '{}') AS inserted FROM claims) AS c
    LEFT JOIN moved AS m ON true`;

/** A reservation row to insert: the order's merged lines as reserved, or as requested. */
export interface Claim {
  readonly orderId: string;
  readonly lines: readonly StockLine[];
  readonly status: 'RESERVED' | 'REJECTED';
}

/**
 * Locks the SKUs' rows until the transaction ends and returns them, so the batch is planned
 * against the other writers' (e.g. `PUT /inventory`) committed counts.
 */
export function lockStock(sql: Sql, skus: readonly string[]): Promise<StockRow[]> {
  return sql.query<StockRow>(LOCK_STOCK, [skus]);
}

/** The orders (of `orderIds`) that already have a reservation row, in lower-case UUID form. */
export async function findClaimed(sql: Sql, orderIds: readonly string[]): Promise<Set<string>> {
  const rows = await sql.query<{ order_id: string }>(FIND_CLAIMED, [orderIds]);
  return new Set(rows.map((row) => row.order_id));
}

type Nullable<T> = { readonly [K in keyof T]: T[K] | null };

/** What {@link claimAndMove} did: the order ids actually claimed, and the stock rows it moved. */
export interface ClaimedAndMoved {
  readonly inserted: ReadonlySet<string>;
  readonly moved: readonly StockRow[];
}

/**
 * Inserts the claims (one reservation row per order) and moves units from `available` to
 * `reserved`, one line per SKU (summed per SKU), in one statement. The SKUs' rows must be locked.
 */
export async function claimAndMove(
  sql: Sql,
  claims: readonly Claim[],
  moves: readonly StockLine[],
): Promise<ClaimedAndMoved> {
  const rows = await sql.query<{ readonly inserted: string[] } & Nullable<StockRow>>(CLAIM_AND_MOVE, [
    claims.map((claim) => claim.orderId),
    claims.map((claim) => JSON.stringify(claim.lines)),
    claims.map((claim) => claim.status),
    moves.map((move) => move.sku),
    moves.map((move) => move.quantity),
  ]);
  return {
    inserted: new Set(rows[0]?.inserted ?? []),
    moved: rows.filter((row): row is typeof row & StockRow => row.sku !== null),
  };
}
