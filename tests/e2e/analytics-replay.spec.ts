import { randomUUID } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderPlacedPayloadSchema, Topics, encodeHeaders, metadataOf } from '@pipeline/contracts';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { caughtUp as caughtUpWith, testProducer } from '../support/events';
import { testKafka, uniqueName } from '../support/kafka';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';

const MINUTE = 60_000;
const WINDOW = 5 * MINUTE;

// The analytics state is a deterministic function of the `orders` log: stop the service, wipe its
// tables (inbox included), reset the group to the earliest offsets, start it again, and the
// windows and late events come out identical, however the partitions interleave this time.
describe('analytics-service rebuilds identical windows from a replay of the orders topic', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.analytics-replay')}.`;
  const group = uniqueName('e2e.analytics-replay.group');
  const T = Math.floor((Date.now() - 48 * 60 * MINUTE) / WINDOW) * WINDOW;
  const customers = [uniqueName('replay-a'), uniqueName('replay-b')];
  let database: TestDatabase;
  let service: ServiceUnderTest | undefined;
  let admin: Admin;
  let baseUrl = '';

  /** Starts the service on the same database and group each time: a restart. */
  async function start(): Promise<void> {
    service = await startService('analytics', {
      prefix,
      group,
      database,
      env: { KAFKA_TOPIC_PARTITIONS: '6' },
    });
    ({ baseUrl } = service);
  }

  async function stop(): Promise<void> {
    await service?.stop();
    service = undefined;
  }

  beforeAll(async () => {
    database = await createTestDatabase('e2e_analytics_replay');
    admin = kafka.admin();
    await admin.connect();
    await start();
  });

  afterAll(async () => {
    await stop();
    await admin?.disconnect();
    await deletePrefixedTopics(kafka, prefix);
    await database?.drop();
  });

  /** Every partition's committed offset reached the topic's end. */
  const caughtUp = () => caughtUpWith(admin, group, [prefix + Topics.orders]);

  interface Snapshot {
    readonly views: { readonly windows: unknown[]; readonly late: number }[];
    readonly late: { event_id: string; customer_id: string; type: string; event_time: Date }[];
  }

  async function snapshot(): Promise<Snapshot> {
    const views: Snapshot['views'] = [];
    for (const customer of customers) {
      const response = await fetch(`${baseUrl}/analytics/customers/${customer}/windows`);
      views.push((await response.json()) as Snapshot['views'][number]);
    }
    const late = await database.withClient(async (client) => {
      const result = await client.query<Snapshot['late'][number]>(
        'SELECT event_id, customer_id, type, event_time FROM late_events ORDER BY event_id',
      );
      return result.rows;
    });
    return { views, late };
  }

  it('gives the same windows and late events after an offset reset and a replay', async () => {
    const producer = testProducer(kafka);
    await producer.connect();
    const send = async (customerId: string, at: number, partition?: number) => {
      const orderId = randomUUID();
      const payload = OrderPlacedPayloadSchema.parse({
        orderId,
        customerId,
        customerEmail: 'replay@example.test',
        items: [{ sku: 'MUG-BLUE', quantity: 1, unitPrice: '12.50' }],
        total: '12.50',
        currency: 'EUR',
        placedAt: new Date(at).toISOString(),
      });
      const headers = encodeHeaders(
        metadataOf(
          {
            topic: Topics.orders,
            key: orderId,
            type: 'order.placed',
            payload,
            correlationId: orderId,
            time: new Date(at),
          },
          'test-producer',
        ),
      );
      await producer.send({
        topic: prefix + Topics.orders,
        acks: -1,
        messages: [
          {
            key: orderId,
            value: JSON.stringify(payload),
            headers,
            ...(partition === undefined ? {} : { partition }),
          },
        ],
      });
    };
    // Keyed by order id, so spread over the partitions, with event times out of order.
    for (let i = 0; i < 24; i++) await send(customers[i % 2]!, T + ((i * 7) % 17) * MINUTE);
    // One partition certainly sees a late event: the watermark jumps ahead, then an old one arrives.
    await send(customers[0]!, T + 30 * MINUTE, 5);
    await send(customers[0]!, T + MINUTE, 5);
    await producer.disconnect();
    await caughtUp();
    const before = await snapshot();

    await stop();
    await database.withClient((client) =>
      client.query('TRUNCATE customer_windows, late_events, partition_watermarks, inbox'),
    );
    await admin.resetOffsets({ groupId: group, topic: prefix + Topics.orders, earliest: true });
    await start();
    await caughtUp();
    const after = await snapshot();

    expect(after).toEqual(before);
    expect(before.views[0]?.windows.length).toBeGreaterThan(1);
    expect(before.late.length).toBeGreaterThanOrEqual(1);
    expect(before.views.reduce((sum, view) => sum + view.late, 0)).toBe(before.late.length);
  });
});
