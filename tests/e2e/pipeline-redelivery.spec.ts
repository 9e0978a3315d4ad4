import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHeaders, Topics, type OrderItem, headerValue } from '@pipeline/contracts';
import { caughtUp, committedPast, reproduce } from '../support/events';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { emailsTo } from '../support/service-harness';
import { PipelineUnderTest, SERVICES, Timelines, type PlacedOrder } from './pipeline.harness';

const SAGA_TOPICS = [Topics.orders, Topics.payments, Topics.inventory];
const SKUS = ['SKU-GRAPE', 'SKU-HONEYDEW', 'SKU-KIWI', 'SKU-RARE'];

interface Located {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

// Kafka delivers at least once: every saga event may come again, with the same ce_id. Three
// orders (confirmed, out of stock, declined) cover all eight saga event types; each is produced
// again, unchanged, and no service may do anything twice.
describe('the order pipeline under redelivery', () => {
  let pipeline: PipelineUnderTest;

  beforeAll(async () => {
    pipeline = await PipelineUnderTest.start('e2e.redelivery');
  });

  afterAll(() => pipeline?.stop());

  /** Every service processed `records` on the topics it consumes and relayed all it caused. */
  async function processed(records: readonly Located[]): Promise<void> {
    const { admin } = pipeline;
    await Promise.all(
      SERVICES.map((name) => {
        const mine = records.filter((record) => pipeline.consumed(name).includes(record.topic));
        return committedPast(admin, pipeline.service(name).group, mine);
      }),
    );
    // A duplicate that slipped through would sit in an outbox or be on its way to a consumer.
    await Promise.all(
      SERVICES.map((name) =>
        eventually(
          () =>
            pipeline.service(name).database.withClient(async (client) => {
              const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox');
              return rows[0]?.n === 0 ? true : undefined;
            }),
          { what: `${name}-service's outbox empty` },
        ),
      ),
    );
    await Promise.all(
      SERVICES.map((name) => caughtUp(admin, pipeline.service(name).group, pipeline.consumed(name))),
    );
  }

  /** What any service could have done twice: order, emails, windows, stock, payments. */
  async function observable(orders: readonly PlacedOrder[]) {
    const payments = await pipeline.service('payment').database.withClient(async (client) => {
      const sql =
        'SELECT order_id::text, status::text, amount::text FROM payments WHERE order_id::text = ANY($1) ORDER BY 1';
      return (await client.query<Record<string, string>>(sql, [orders.map((order) => order.orderId)])).rows;
    });
    return {
      orders: await Promise.all(orders.map((order) => pipeline.order(order.orderId))),
      emails: await Promise.all(
        orders.map(async (order) =>
          (await emailsTo(order.recipient)).map((email) => email.headers['message-id']),
        ),
      ),
      windows: await Promise.all(orders.map((order) => pipeline.windows(order.customerId))),
      stock: await Promise.all(SKUS.map((sku) => pipeline.stock(sku))),
      payments,
    };
  }

  it('re-publishing every saga event with the same ce_id changes nothing', async () => {
    const scenarios: {
      customerId: string;
      items: OrderItem[];
      timeline: readonly string[];
      end: 'confirmed' | 'cancelled';
    }[] = [
      {
        customerId: uniqueName('again'),
        items: [{ sku: 'SKU-GRAPE', quantity: 4, unitPrice: '3.00' }],
        timeline: Timelines.confirmed,
        end: 'confirmed',
      },
      {
        customerId: uniqueName('again'),
        items: [
          { sku: 'SKU-HONEYDEW', quantity: 1, unitPrice: '2.00' },
          { sku: 'SKU-RARE', quantity: 1, unitPrice: '1.00' },
        ],
        timeline: Timelines.outOfStock,
        end: 'cancelled',
      },
      {
        customerId: `blocked-${randomBytes(4).toString('hex')}`,
        items: [{ sku: 'SKU-KIWI', quantity: 1, unitPrice: '1.00' }],
        timeline: Timelines.declined,
        end: 'cancelled',
      },
    ];
    const orders = await Promise.all(
      scenarios.map(async ({ customerId, items, timeline, end }) => {
        const placed = await pipeline.placeOrder(customerId, items);
        await pipeline.orderThrough(placed.orderId, timeline);
        await pipeline.countedWindows(customerId, end);
        await eventually(async () => ((await emailsTo(placed.recipient)).length > 0 ? true : undefined));
        return placed;
      }),
    );
    const ids = new Set(orders.map((order) => order.orderId));
    const read = () => Promise.all(SAGA_TOPICS.map((topic) => pipeline.records(topic, ids)));
    const original = await read();
    // orders: placed + outcome each; payments: authorized ×2, refunded, declined; inventory: reserved, rejected.
    expect(original.map((records) => records.length)).toEqual([6, 4, 2]);
    await processed(
      original.flatMap((records, index) =>
        records.map(({ partition, offset }) => ({
          topic: pipeline.prefix + SAGA_TOPICS[index]!,
          partition,
          offset,
        })),
      ),
    );
    const before = await observable(orders);
    expect(before.emails.map((sent) => sent.length)).toEqual([1, 1, 1]);
    expect(before.payments).toHaveLength(3);

    const republished: Located[] = [];
    for (const [index, records] of original.entries()) {
      const topic = pipeline.prefix + SAGA_TOPICS[index]!;
      for (const record of records) republished.push(await reproduce(pipeline.producer, topic, record));
    }
    await processed(republished);

    expect(await observable(orders)).toEqual(before);
    // Only the copies were added: no service published a new event (no second payment, reservation, …).
    const eventIds = (topics: Awaited<ReturnType<typeof read>>) =>
      topics.map((records) => records.map((record) => headerValue(record.headers, EventHeaders.id)).sort());
    expect(eventIds(await read())).toEqual(eventIds(original).map((topic) => [...topic, ...topic].sort()));
  });
});
