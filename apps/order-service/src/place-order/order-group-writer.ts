import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Link } from '@opentelemetry/api';
import { OrderPlacedEvent, Topics } from '@pipeline/contracts';
import { asDatabaseError, draftOutboxRows, insertOutboxRows } from '@pipeline/messaging';
import { messageOf } from '@pipeline/observability';
import { inTransaction, type Sql } from '@pipeline/database';
import type pg from 'pg';
import type { OrderStatus } from '../generated/prisma/enums';
import type { EarlierRequest, PendingOrder, PlaceOrderResult } from './pending-order';

/** As Prisma's `maxWait` was: an exhausted pool answers 503 after this long, not never. */
const CONNECT_TIMEOUT_MS = 10_000;

/** CloudEvents `source` of order.placed, and the relay this process wakes after a group's COMMIT. */
const ORDER_SOURCE = 'order-service';

// One statement text per table whatever the group size (arrays in, unnest out). Keys are claimed
// in key order, so two groups in flight together lock the same keys in the same order.
const CLAIM_KEYS = `INSERT INTO idempotency_keys (key, request_hash, order_id)
  SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[]) AS k(key, request_hash, order_id)
  ORDER BY key
  ON CONFLICT (key) DO NOTHING
  RETURNING key`;
const EARLIER_REQUESTS = `SELECT k.key, k.request_hash, k.order_id, o.status
  FROM idempotency_keys k JOIN orders o ON o.id = k.order_id
  WHERE k.key = ANY($1::text[])`;
// The orders, their lines and their first timeline entries (order.placed, not yet sent) in one
// statement: one round trip, and the foreign keys of lines and entries are checked at its end,
// when the orders are there. Entries in list order, as insertTimeline writes them.
const INSERT_ORDERS = `WITH placed AS (
    INSERT INTO orders (id, customer_id, customer_email, total, currency, created_at, updated_at)
    SELECT id, customer_id, customer_email, total, currency, at, at
      FROM unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::timestamptz[])
        AS o(id, customer_id, customer_email, total, currency, at)),
  lines AS (
    INSERT INTO order_items (order_id, line, sku, quantity, unit_price)
    SELECT * FROM unnest($7::uuid[], $8::int[], $9::text[], $10::int[], $11::numeric[]))
  INSERT INTO order_timeline (order_id, type, event_id, at, topic)
  SELECT t.order_id, $13, t.event_id, t.at, $14
    FROM unnest($1::uuid[], $12::uuid[], $6::timestamptz[]) WITH ORDINALITY AS t(order_id, event_id, at, n)
   ORDER BY t.n`;

interface EarlierRow {
  key: string;
  request_hash: string;
  order_id: string;
  status: OrderStatus;
}

const tracer = trace.getTracer('order-service');

/**
 * One transaction for a group of orders: their idempotency keys, orders, lines, first timeline
 * entries (one statement) and order.placed events (another). An order whose key was used before
 * writes nothing and gets that request's answer instead.
 *
 * Its own trace, linked to each request's: the group belongs to no single request. A group none of
 * whose requests is sampled runs outside any trace, as an unsampled consumer batch does: the pg
 * instrumentation (`requireParentSpan`) then does nothing for its statements, where under the
 * group's non-recording span it would build a non-recording span for each.
 */
export function writeOrderGroup(pool: pg.Pool, orders: readonly PendingOrder[]): Promise<PlaceOrderResult[]> {
  const links = orders.flatMap((order): Link[] =>
    order.spanContext ? [{ context: order.spanContext }] : [],
  );
  const span = tracer.startSpan('place-order group commit', {
    kind: SpanKind.INTERNAL,
    root: true,
    links,
    attributes: { 'order.group.size': orders.length },
  });
  const traced = span.isRecording() ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT;
  return context.with(traced, async () => {
    try {
      const { results, relayOutbox } = await inTransaction(pool, (sql) => writeOrders(sql, orders), {
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      // Committed: the relay publishes order.placed now, not on a NOTIFY's round trip.
      relayOutbox();
      return results;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
      // A cut connection is a 503 with Retry-After, and the group is not written again order
      // by order (the outcome of a COMMIT cut off is unknown).
      throw asDatabaseError(error);
    } finally {
      span.end();
    }
  });
}

async function writeOrders(
  sql: Sql,
  orders: readonly PendingOrder[],
): Promise<{ results: PlaceOrderResult[]; relayOutbox: () => void }> {
  const earlier = await claimKeys(sql, orders);
  const placing = orders.filter((order) => !earlier.has(order));
  let relayOutbox: () => void = () => undefined;
  if (placing.length > 0) {
    await insertOrders(sql, placing);
    relayOutbox = await insertOutboxRows(
      sql,
      placing.flatMap((order) =>
        draftOutboxRows(
          [
            {
              topic: Topics.orders,
              key: order.orderId,
              type: OrderPlacedEvent.type,
              payload: order.payload,
              correlationId: order.orderId,
              id: order.eventId,
              time: order.placedAt,
            },
          ],
          // Each record continues its own request's trace.
          { source: ORDER_SOURCE, trace: order.trace },
        ),
      ),
      ORDER_SOURCE,
    );
  }
  const results = orders.map(
    (order) => earlier.get(order) ?? { kind: 'placed' as const, orderId: order.orderId },
  );
  return { results, relayOutbox };
}

/**
 * Claims the keys of the orders that have one. A key already taken, by a committed order or by
 * a concurrent transaction (whose commit the INSERT waits for), yields that order's answer:
 * replayed for the same request, conflict for another.
 */
async function claimKeys(
  sql: Sql,
  orders: readonly PendingOrder[],
): Promise<Map<PendingOrder, EarlierRequest>> {
  const keyed = orders.filter((order) => order.idempotency !== undefined);
  const earlier = new Map<PendingOrder, EarlierRequest>();
  if (keyed.length === 0) return earlier;
  const claimed = await sql.query<{ key: string }>(CLAIM_KEYS, [
    keyed.map((order) => order.idempotency!.key),
    keyed.map((order) => order.idempotency!.requestHash),
    keyed.map((order) => order.orderId),
  ]);
  const ours = new Set(claimed.map((row) => row.key));
  const taken = keyed.filter((order) => !ours.has(order.idempotency!.key));
  if (taken.length === 0) return earlier;
  const rows = await sql.query<EarlierRow>(EARLIER_REQUESTS, [taken.map((order) => order.idempotency!.key)]);
  const byKey = new Map(rows.map((row) => [row.key, row]));
  for (const order of taken) {
    const row = byKey.get(order.idempotency!.key);
    if (row === undefined)
      throw new Error(`idempotency key of order ${order.orderId} neither claimed nor found`);
    earlier.set(
      order,
      row.request_hash === order.idempotency!.requestHash
        ? { kind: 'replayed', orderId: row.order_id, status: row.status }
        : { kind: 'conflict', orderId: row.order_id },
    );
  }
  return earlier;
}

async function insertOrders(sql: Sql, orders: readonly PendingOrder[]): Promise<void> {
  const lines = orders.flatMap((order) =>
    order.payload.items.map((item, index) => ({ orderId: order.orderId, line: index + 1, ...item })),
  );
  await sql.execute(INSERT_ORDERS, [
    orders.map((order) => order.orderId),
    orders.map((order) => order.payload.customerId),
    orders.map((order) => order.payload.customerEmail),
    orders.map((order) => order.payload.total),
    orders.map((order) => order.payload.currency),
    orders.map((order) => order.placedAt.toISOString()),
    lines.map((line) => line.orderId),
    lines.map((line) => line.line),
    lines.map((line) => line.sku),
    lines.map((line) => line.quantity),
    lines.map((line) => line.unitPrice),
    orders.map((order) => order.eventId),
    OrderPlacedEvent.type,
    Topics.orders,
  ]);
}
