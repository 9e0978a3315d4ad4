// Once its relay has sent order events, order-service writes their Kafka positions into the
// timeline: one statement per relay batch, on the relay's path. A timeline only grows (one row per
// event of every order), and on a PostgreSQL that never analyses it (autovacuum off, as on these
// machines) the planner has no statistics to choose by. The statement must find each event's
// entry through its order's index whatever the table holds, never by reading the table whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { OrderServiceUnderTest } from './order-service.harness';

const ORDERS = 50;

// pg_stat_user_tables's bigint counters, as pg reads them.
type TableCounters = { readonly seq_scan: string; readonly n_tup_upd: string };

describe('order-service: the positions of the events it published', () => {
  let svc: OrderServiceUnderTest;
  beforeAll(async () => {
    svc = await OrderServiceUnderTest.start('e2e.order.timeline.positions');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  // Each statement on its own session, outside a transaction: a fresh view of the statistics,
  // which a backend flushes by itself, the sequential-scan count and the updated rows of a
  // statement together.
  const counters = async () => {
    const [row] = await svc.sql<TableCounters>(
      `SELECT seq_scan, n_tup_upd FROM pg_stat_user_tables WHERE relname = 'order_timeline'`,
    );
    return { seqScans: Number(row!.seq_scan), updated: Number(row!.n_tup_upd) };
  };

  it('are written without scanning the timeline, however many entries it holds', async () => {
    // 50,000 entries of 12,500 earlier orders, never analysed: a long run's timeline.
    await svc.sql(`WITH earlier AS (
        INSERT INTO orders (id, customer_id, customer_email, total, currency)
        SELECT gen_random_uuid(), 'earlier', 'earlier@example.com', 10, 'EUR' FROM generate_series(1, 12500)
        RETURNING id)
      INSERT INTO order_timeline (order_id, type, event_id, at, topic, "partition", "offset")
      SELECT earlier.id, type, gen_random_uuid(), now(), 'orders', 0, 0
        FROM earlier, unnest(ARRAY['order.placed', 'payment.authorized', 'stock.reserved', 'order.confirmed']) AS type`);
    const before = await counters();

    const placed = await Promise.all(
      Array.from({ length: ORDERS }, async () => {
        const answer = await svc.request<{ orderId: string }>('POST', '/orders', {
          customerId: uniqueName('positions'),
          customerEmail: 'grace@example.com',
          items: [{ sku: 'SKU-1', quantity: 1, unitPrice: '5.25' }],
        });
        expect(answer.status).toBe(202);
        return answer.body.orderId;
      }),
    );
    const after = await eventually(
      async () => {
        const now = await counters();
        return now.updated >= before.updated + ORDERS ? now : undefined;
      },
      { timeoutMs: 30_000, what: `the positions of ${ORDERS} order.placed events written` },
    );

    expect(after.seqScans - before.seqScans).toBe(0);
    const unplaced = await svc.sql<{ order_id: string }>(
      `SELECT order_id FROM order_timeline WHERE order_id = ANY($1::uuid[]) AND "offset" IS NULL`,
      [placed],
    );
    expect(unplaced).toEqual([]);
  });
});
