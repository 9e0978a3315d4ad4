import { randomUUID } from 'node:crypto';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventHeaders,
  OrderConfirmedPayloadSchema,
  OrderPlacedPayloadSchema,
  OrdersCountUpdatedPayloadSchema,
  Topics,
  ordersCountKey,
  type OrdersCountUpdatedPayload,
  encodeHeaders,
  metadataOf,
} from '@pipeline/contracts';
import type { TestDatabase } from '../support/db';
import { readEvents, readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';
import { testProducer } from '../support/events';

const MINUTE = 60_000;
const WINDOW = 5 * MINUTE;

interface WindowsResponse {
  readonly customerId: string;
  readonly windows: {
    windowStart: string;
    windowEnd: string;
    placed: number;
    confirmed: number;
    cancelled: number;
    revenue: string;
  }[];
  readonly late: number;
}

// A running analytics-service counts `orders` events per customer in 5-minute windows of event
// time. Lateness is judged against the highest event time seen on the record's partition, so each
// scenario produces to its own partition: scenarios stay independent of each other and of order.
describe('analytics-service counts orders in tumbling windows of event time', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.analytics')}.`;
  // Window-aligned and in the past, so no real clock matters: event times are all explicit.
  const T = Math.floor((Date.now() - 24 * 60 * MINUTE) / WINDOW) * WINDOW;
  const iso = (ms: number) => new Date(ms).toISOString();
  let group: string;
  let database: TestDatabase;
  let service: ServiceUnderTest;
  let producer: Producer;
  let admin: Admin;
  let baseUrl: string;

  beforeAll(async () => {
    admin = kafka.admin();
    producer = testProducer(kafka);
    await Promise.all([admin.connect(), producer.connect()]);
    service = await startService('analytics', {
      prefix,
      env: { KAFKA_TOPIC_PARTITIONS: '6', ANALYTICS_GRACE_MS: String(MINUTE) },
    });
    ({ group, database, baseUrl } = service);
  });

  afterAll(async () => {
    await service?.stop();
    await Promise.all([producer?.disconnect(), admin?.disconnect()]);
    await deletePrefixedTopics(kafka, prefix);
  });

  interface Sent {
    readonly partition: number;
    readonly offset: string;
    readonly headers: Record<string, string>;
    readonly value: string;
    readonly key: string;
  }

  /** Produces `order.placed` for a new order at event time `at`, to the scenario's partition. */
  async function placed(customerId: string, at: number, partition: number): Promise<Sent> {
    const orderId = randomUUID();
    const payload = OrderPlacedPayloadSchema.parse({
      orderId,
      customerId,
      customerEmail: 'analytics@example.test',
      items: [{ sku: 'MUG-BLUE', quantity: 1, unitPrice: '12.50' }],
      total: '12.50',
      currency: 'EUR',
      placedAt: iso(at),
    });
    return send('order.placed', orderId, payload, at, partition);
  }

  async function send(
    type: string,
    orderId: string,
    payload: object,
    at: number,
    partition: number,
  ): Promise<Sent> {
    const headers = encodeHeaders(
      metadataOf(
        { topic: Topics.orders, key: orderId, type, payload, correlationId: orderId, time: new Date(at) },
        'test-producer',
      ),
    );
    return resend({ partition, offset: '', headers, value: JSON.stringify(payload), key: orderId });
  }

  /** Produces a record again, same ce_id and all: what a redelivery looks like. */
  async function resend(record: Sent): Promise<Sent> {
    const [meta] = await producer.send({
      topic: prefix + Topics.orders,
      acks: -1,
      messages: [
        { key: record.key, value: record.value, headers: record.headers, partition: record.partition },
      ],
    });
    return { ...record, offset: meta!.baseOffset! };
  }

  /** The group committed past the record: it was processed (or skipped as a duplicate). */
  const processed = (record: Sent) =>
    eventually(
      async () => {
        const [topic] = await admin.fetchOffsets({ groupId: group, topics: [prefix + Topics.orders] });
        const committed = topic?.partitions.find((p) => p.partition === record.partition)?.offset ?? '-1';
        return BigInt(committed) > BigInt(record.offset) ? true : undefined;
      },
      { what: `offset ${record.offset} of partition ${record.partition} committed` },
    );

  async function windows(customerId: string, query = ''): Promise<WindowsResponse> {
    const response = await fetch(
      `${baseUrl}/analytics/customers/${encodeURIComponent(customerId)}/windows${query}`,
    );
    expect(response.status).toBe(200);
    return (await response.json()) as WindowsResponse;
  }

  /** The latest orders-count record per key (what a compacted topic keeps) for a customer. */
  async function ordersCount(customerId: string): Promise<Map<string, OrdersCountUpdatedPayload>> {
    const latest = new Map<string, OrdersCountUpdatedPayload>();
    for (const record of await readTopic(kafka, prefix + Topics.ordersCount)) {
      const key = record.key?.toString() ?? '';
      if (!key.startsWith(`${customerId}|`)) continue;
      latest.set(key, OrdersCountUpdatedPayloadSchema.parse(JSON.parse(record.value?.toString() ?? 'null')));
    }
    return latest;
  }

  it('counts 3 orders of A and 2 of B in one window, and starts a new window 5 minutes later at 1', async () => {
    const [a, b] = [uniqueName('cust-a'), uniqueName('cust-b')];
    for (const [customer, second] of [
      [a, 10],
      [b, 20],
      [a, 30],
      [b, 40],
      [a, 50],
    ] as const) {
      await placed(customer, T + second * 1000, 0);
    }
    const later = await placed(a, T + WINDOW + 10_000, 0);
    await processed(later);

    expect(await windows(a)).toEqual({
      customerId: a,
      windows: [
        {
          windowStart: iso(T),
          windowEnd: iso(T + WINDOW),
          placed: 3,
          confirmed: 0,
          cancelled: 0,
          revenue: '0.00',
        },
        {
          windowStart: iso(T + WINDOW),
          windowEnd: iso(T + 2 * WINDOW),
          placed: 1,
          confirmed: 0,
          cancelled: 0,
          revenue: '0.00',
        },
      ],
      late: 0,
    });
    expect((await windows(b)).windows.map((w) => [w.windowStart, w.placed])).toEqual([[iso(T), 2]]);
    // from/to select windows by event time.
    expect((await windows(a, `?from=${iso(T + WINDOW)}`)).windows.map((w) => w.placed)).toEqual([1]);

    const counts = await eventually(
      async () => {
        const latest = await ordersCount(a);
        return latest.get(ordersCountKey(a, iso(T + WINDOW)))?.placed === 1 &&
          latest.get(ordersCountKey(a, iso(T)))?.placed === 3
          ? latest
          : undefined;
      },
      { what: "A's orders-count records" },
    );
    expect([...counts.keys()].sort()).toEqual([
      ordersCountKey(a, iso(T)),
      ordersCountKey(a, iso(T + WINDOW)),
    ]);
    expect(counts.get(ordersCountKey(a, iso(T)))).toEqual({
      customerId: a,
      windowStart: iso(T),
      windowEnd: iso(T + WINDOW),
      placed: 3,
      confirmed: 0,
      cancelled: 0,
      revenue: '0.00',
    });
    await eventually(
      async () => ((await ordersCount(b)).get(ordersCountKey(b, iso(T)))?.placed === 2 ? true : undefined),
      {
        what: "B's orders-count record",
      },
    );
  });

  it('puts an event delivered after a later one, but within the grace period, into its own earlier window', async () => {
    const c = uniqueName('cust-c');
    await placed(c, T + WINDOW + 30_000, 1); // watermark: 30 s into the next window
    const straggler = await placed(c, T + 4 * MINUTE, 1); // its window ended 30 s before: inside 60 s of grace
    await processed(straggler);

    const view = await windows(c);
    expect(view.windows.map((w) => [w.windowStart, w.placed])).toEqual([
      [iso(T), 1],
      [iso(T + WINDOW), 1],
    ]);
    expect(view.late).toBe(0);
  });

  it('counts an event beyond the grace period as late instead of adding it', async () => {
    const d = uniqueName('cust-d');
    await placed(d, T + 2 * WINDOW, 2); // watermark: the window after next
    const tooLate = await placed(d, T + 2 * MINUTE, 2); // its window closed 5 min before the watermark, grace is 1 min
    await processed(tooLate);

    const view = await windows(d);
    expect(view.windows.map((w) => [w.windowStart, w.placed])).toEqual([[iso(T + 2 * WINDOW), 1]]);
    expect(view.late).toBe(1);
    expect((await windows(d, `?from=${iso(T + 2 * WINDOW)}`)).late).toBe(0);
    const late = await database.withClient(
      async (client) =>
        (
          await client.query<{ event_id: string }>(
            'SELECT event_id FROM late_events WHERE customer_id = $1',
            [d],
          )
        ).rows,
    );
    expect(late).toEqual([{ event_id: tooLate.headers[EventHeaders.id] }]);
    expect([...(await ordersCount(d)).keys()]).toEqual([ordersCountKey(d, iso(T + 2 * WINDOW))]);
  });

  it('adds confirmed revenue exactly, counts cancellations, and ignores redeliveries', async () => {
    const e = uniqueName('cust-e');
    const confirmed = async (total: string, at: number) => {
      const orderId = randomUUID();
      const payload = OrderConfirmedPayloadSchema.parse({
        orderId,
        customerId: e,
        customerEmail: 'analytics@example.test',
        items: [{ sku: 'MUG-BLUE', quantity: 1, unitPrice: total }],
        total,
        currency: 'EUR',
        confirmedAt: iso(at),
      });
      return send('order.confirmed', orderId, payload, at, 3);
    };
    const first = await placed(e, T + 1000, 3);
    await confirmed('0.10', T + 2000);
    await confirmed('0.20', T + 3000);
    const orderId = randomUUID();
    await send(
      'order.cancelled',
      orderId,
      {
        orderId,
        customerId: e,
        customerEmail: 'analytics@example.test',
        items: [{ sku: 'MUG-BLUE', quantity: 1, unitPrice: '5.00' }],
        total: '5.00',
        currency: 'EUR',
        reason: 'payment_declined',
        cancelledAt: iso(T + 4000),
      },
      T + 4000,
      3,
    );
    const last = await confirmed('1234567.89', T + 5000);
    await processed(last);
    const expected = { placed: 1, confirmed: 3, cancelled: 1, revenue: '1234568.19' };
    expect((await windows(e)).windows).toEqual([
      { windowStart: iso(T), windowEnd: iso(T + WINDOW), ...expected },
    ]);
    const before = await eventually(
      async () => {
        const latest = (await ordersCount(e)).get(ordersCountKey(e, iso(T)));
        return latest?.revenue === expected.revenue ? latest : undefined;
      },
      { what: "E's orders-count record" },
    );
    expect(before).toMatchObject(expected);

    // The same events again, same ce_id: the inbox drops them, nothing changes.
    await resend(first);
    const again = await resend(last);
    await processed(again);
    expect((await windows(e)).windows).toEqual([
      { windowStart: iso(T), windowEnd: iso(T + WINDOW), ...expected },
    ]);
    const records = (await readEvents(kafka, prefix + Topics.ordersCount)).filter((r) =>
      r.key?.toString().startsWith(`${e}|`),
    );
    expect(records).toHaveLength(5);
  });

  it('answers 400 naming the malformed field', async () => {
    const response = await fetch(
      `${baseUrl}/analytics/customers/someone/windows?from=yesterday&to=${iso(T)}`,
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { issues: { field: string }[] };
    expect(body.issues.map((issue) => issue.field)).toEqual(['from']);
    const reversed = await fetch(
      `${baseUrl}/analytics/customers/someone/windows?from=${iso(T + WINDOW)}&to=${iso(T)}`,
    );
    expect(reversed.status).toBe(400);
    expect(
      ((await reversed.json()) as { issues: { field: string }[] }).issues.map((issue) => issue.field),
    ).toEqual(['to']);
  });
});
