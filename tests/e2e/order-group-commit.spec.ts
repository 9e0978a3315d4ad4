// POST /orders group commit against the real database: concurrent orders share a transaction,
// and an order the database refuses fails alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Topics } from '@pipeline/contracts';
import { readEvents, uniqueName } from '../support/kafka';
import { OrderServiceUnderTest } from './order-service.harness';

interface Placed {
  orderId: string;
  status: string;
}

const orderFor = (customerId: string) => ({
  customerId,
  customerEmail: 'ada@example.com',
  items: [
    { sku: 'SKU-1', quantity: 2, unitPrice: '1.50' },
    { sku: 'SKU-2', quantity: 1, unitPrice: 4 },
  ],
});

describe('order-service: POST /orders group commit', () => {
  let svc: OrderServiceUnderTest;
  beforeAll(async () => {
    svc = await OrderServiceUnderTest.start('e2e.order.group');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('writes concurrent orders in shared transactions, each with its lines, timeline and event', async () => {
    const prefix = uniqueName('group');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        svc.request<Placed>('POST', '/orders', orderFor(`${prefix}-${i}`), {
          'Idempotency-Key': `${prefix}-${i}`,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 202));
    const ids = answers.map((answer) => answer.body.orderId);
    // Rows a transaction wrote carry its id (xmin). The first order is written at once; those that
    // arrive while its transaction is in flight share the next one, and so on.
    const [groups] = await svc.sql<{ tx: number }>(
      'SELECT count(DISTINCT xmin::text)::int AS tx FROM orders WHERE id = ANY($1::uuid[])',
      [ids],
    );
    expect(groups!.tx).toBeLessThan(20);
    // Every order's lines and idempotency key were written in its own order's transaction.
    const [mismatched] = await svc.sql<{ items: number; keys: number }>(
      `SELECT
         (SELECT count(*)::int FROM order_items i JOIN orders o ON o.id = i.order_id
           WHERE o.id = ANY($1::uuid[]) AND i.xmin::text <> o.xmin::text) AS items,
         (SELECT count(*)::int FROM idempotency_keys k JOIN orders o ON o.id = k.order_id
           WHERE o.id = ANY($1::uuid[]) AND k.xmin::text <> o.xmin::text) AS keys`,
      [ids],
    );
    expect(mismatched).toEqual({ items: 0, keys: 0 });
    const [counts] = await svc.sql<{ items: number; keys: number }>(
      `SELECT (SELECT count(*)::int FROM order_items WHERE order_id = ANY($1::uuid[])) AS items,
              (SELECT count(*)::int FROM idempotency_keys WHERE order_id = ANY($1::uuid[])) AS keys`,
      [ids],
    );
    expect(counts).toEqual({ items: 40, keys: 20 });
    // Once the relay has published order.placed it writes the record's position into the
    // timeline row, which gives the row the relay's xmin: those still without one carry their order's.
    const [timeline] = await svc.sql<{ n: number; other: number }>(
      `SELECT count(*)::int AS n,
              count(*) FILTER (WHERE t."offset" IS NULL AND t.xmin::text <> o.xmin::text)::int AS other
         FROM order_timeline t JOIN orders o ON o.id = t.order_id WHERE o.id = ANY($1::uuid[])`,
      [ids],
    );
    expect(timeline).toEqual({ n: 20, other: 0 });

    await svc.outboxDrained();
    for (const id of ids) expect(await svc.records(Topics.orders, id)).toHaveLength(1);
  });

  it('writes a group the database refuses again order by order: only the bad order fails', async () => {
    const prefix = uniqueName('poison');
    // The database refuses one order of the group (the validation at the edge would let it in).
    await svc.sql(`CREATE OR REPLACE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.customer_id LIKE '%-poison' THEN RAISE EXCEPTION 'poisoned order'; END IF;
        RETURN NEW;
      END $$`);
    await svc.sql(
      'CREATE TRIGGER refuse_poison BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION refuse_poison()',
    );
    try {
      const customers = Array.from({ length: 9 }, (_, i) => `${prefix}-${i}`);
      customers.splice(4, 0, `${prefix}-poison`);
      const answers = await Promise.all(
        customers.map((customerId) => svc.request<Placed>('POST', '/orders', orderFor(customerId))),
      );
      expect(answers.map((answer) => answer.status)).toEqual([
        202, 202, 202, 202, 500, 202, 202, 202, 202, 202,
      ]);
      const stored = await svc.sql<{ customer_id: string }>(
        'SELECT customer_id FROM orders WHERE customer_id LIKE $1 ORDER BY customer_id',
        [`${prefix}-%`],
      );
      expect(stored.map((row) => row.customer_id)).toEqual(
        customers.filter((c) => !c.endsWith('poison')).sort(),
      );
      await svc.outboxDrained();
      const published = (await readEvents(svc.kafka, svc.prefix + Topics.orders))
        .map((record) => (JSON.parse(record.value!.toString()) as { customerId: string }).customerId)
        .filter((customerId) => customerId.startsWith(`${prefix}-`));
      expect(published.sort()).toEqual(stored.map((row) => row.customer_id));
    } finally {
      await svc.sql('DROP TRIGGER refuse_poison ON orders');
    }
  });
});
