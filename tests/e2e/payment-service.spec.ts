import { randomUUID } from 'node:crypto';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeadLetterHeaders,
  EventHeaders,
  Topics,
  deadLetterTopic,
  type OrderPlacedPayload,
  type StockRejectedPayload,
  encodeHeaders,
  headerValue,
  metadataOf,
  type EventMetadata,
} from '@pipeline/contracts';
import type { TestDatabase } from '../support/db';
import { readEvents, readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';
import { testProducer } from '../support/events';

// payment-service as a real process on its own test database and its own prefixed topics:
// order.placed in, payment.authorized / declined out; stock.rejected in, payment.refunded out.
describe('payment-service authorizes, declines and refunds', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e')}.`;
  let group: string;
  let database: TestDatabase;
  let service: ServiceUnderTest;
  let producer: Producer;
  let admin: Admin;

  beforeAll(async () => {
    producer = testProducer(kafka);
    admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    service = await startService('payment', { prefix });
    ({ group, database } = service);
  });

  afterAll(async () => {
    await service?.stop();
    await Promise.all([producer?.disconnect(), admin?.disconnect()]);
    await deletePrefixedTopics(kafka, prefix);
  });

  interface Sent {
    readonly metadata: EventMetadata;
    readonly topic: string;
    readonly partition: number;
    readonly offset: string;
  }

  /** Produces an event with CloudEvents headers, keyed and correlated by the order id. */
  async function publish(
    topic: string,
    type: string,
    payload: { orderId: string },
    metadata?: EventMetadata,
  ): Promise<Sent> {
    const event = { topic, key: payload.orderId, type, payload, correlationId: payload.orderId };
    const meta = metadata ?? metadataOf(event, 'test-producer');
    const [sent] = await producer.send({
      topic: prefix + topic,
      acks: -1,
      messages: [{ key: payload.orderId, value: JSON.stringify(payload), headers: encodeHeaders(meta) }],
    });
    return { metadata: meta, topic: prefix + topic, partition: sent!.partition, offset: sent!.baseOffset! };
  }

  /** The consumer committed past the record and the outbox relay published what it wrote. */
  async function settled(sent: Sent): Promise<void> {
    await eventually(
      async () => {
        const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [sent.topic] });
        const committed = offsets?.partitions.find((p) => p.partition === sent.partition)?.offset ?? '-1';
        const { rows } = await database.withClient((c) =>
          c.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox'),
        );
        return BigInt(committed) > BigInt(sent.offset) && rows[0]?.n === 0 ? true : undefined;
      },
      { what: `${sent.metadata.type} ${sent.metadata.id} processed and relayed` },
    );
  }

  const paymentsFor = async (orderId: string) =>
    (await readEvents(kafka, prefix + Topics.payments)).filter(
      (record) => record.key?.toString() === orderId,
    );

  const eventFor = (orderId: string, type: string) =>
    eventually(
      async () =>
        (await paymentsFor(orderId)).find((r) => headerValue(r.headers, EventHeaders.type) === type),
      {
        what: `${type} for ${orderId}`,
      },
    );

  const paymentRows = (orderId: string) =>
    database.withClient(async (c) => {
      const sql = 'SELECT id::text, status::text, amount::text, reason FROM payments WHERE order_id = $1';
      return (
        await c.query<{ id: string; status: string; amount: string; reason: string | null }>(sql, [orderId])
      ).rows;
    });

  const order = (overrides: Partial<OrderPlacedPayload> = {}): OrderPlacedPayload => ({
    orderId: randomUUID(),
    customerId: `customer-${randomUUID().slice(0, 8)}`,
    customerEmail: 'buyer@example.com',
    items: [
      { sku: 'SKU-APPLE', quantity: 2, unitPrice: '4000.00' },
      { sku: 'SKU-KIWI', quantity: 1, unitPrice: '2000.00' },
    ],
    total: '10000.00',
    currency: 'EUR',
    placedAt: new Date().toISOString(),
    ...overrides,
  });

  it('authorizes an order of exactly 10000.00 and publishes payment.authorized with the items', async () => {
    const placed = order();
    const sent = await publish(Topics.orders, 'order.placed', placed);
    const record = await eventFor(placed.orderId, 'payment.authorized');
    const [payment] = await paymentRows(placed.orderId);
    expect(payment).toMatchObject({ status: 'AUTHORIZED', amount: '10000.00', reason: null });
    expect(JSON.parse(record.value!.toString())).toEqual({
      orderId: placed.orderId,
      paymentId: payment!.id,
      customerId: placed.customerId,
      amount: '10000.00',
      currency: 'EUR',
      items: placed.items,
      authorizedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) as unknown,
    });
    const header = (name: string) => headerValue(record.headers, name);
    expect(header(EventHeaders.source)).toBe('payment-service');
    expect(header(EventHeaders.specVersion)).toBe('1.0');
    expect(header(EventHeaders.causationId)).toBe(sent.metadata.id);
    expect(header(EventHeaders.correlationId)).toBe(placed.orderId);
    expect(header(EventHeaders.id)).not.toBe(sent.metadata.id);
  });

  it.each([
    ['amount_over_limit', { total: '10000.01' }],
    ['customer_blocked', { customerId: `blocked-${randomUUID().slice(0, 8)}`, total: '12.50' }],
  ] as const)('declines with reason %s and publishes payment.declined', async (reason, overrides) => {
    const placed = order(overrides);
    const sent = await publish(Topics.orders, 'order.placed', placed);
    const record = await eventFor(placed.orderId, 'payment.declined');
    const [payment] = await paymentRows(placed.orderId);
    expect(payment).toMatchObject({ status: 'DECLINED', amount: placed.total, reason });
    expect(JSON.parse(record.value!.toString())).toEqual({
      orderId: placed.orderId,
      paymentId: payment!.id,
      amount: placed.total,
      currency: 'EUR',
      reason,
      declinedAt: expect.any(String) as unknown,
    });
    expect(headerValue(record.headers, EventHeaders.causationId)).toBe(sent.metadata.id);
    expect(headerValue(record.headers, EventHeaders.correlationId)).toBe(placed.orderId);
  });

  it('takes one payment per order: the same event again, and the order under a new event id', async () => {
    const placed = order({ total: '99.99' });
    const first = await publish(Topics.orders, 'order.placed', placed);
    await publish(Topics.orders, 'order.placed', placed, first.metadata);
    const last = await publish(Topics.orders, 'order.placed', placed);
    expect(last.metadata.id).not.toBe(first.metadata.id);
    await settled(last);
    expect(await paymentRows(placed.orderId)).toHaveLength(1);
    const events = await paymentsFor(placed.orderId);
    expect(events.map((r) => headerValue(r.headers, EventHeaders.type))).toEqual(['payment.authorized']);
    expect(headerValue(events[0]!.headers, EventHeaders.causationId)).toBe(first.metadata.id);
  });

  it('refunds an authorized payment on stock.rejected, once', async () => {
    const placed = order({ total: '25.00' });
    await publish(Topics.orders, 'order.placed', placed);
    await eventFor(placed.orderId, 'payment.authorized');
    const rejected: StockRejectedPayload = {
      orderId: placed.orderId,
      missingSkus: ['SKU-KIWI'],
      reason: 'out_of_stock',
      rejectedAt: new Date().toISOString(),
    };
    const sent = await publish(Topics.inventory, 'stock.rejected', rejected);
    const record = await eventFor(placed.orderId, 'payment.refunded');
    const [payment] = await paymentRows(placed.orderId);
    expect(payment).toMatchObject({ status: 'REFUNDED', amount: '25.00', reason: 'out_of_stock' });
    expect(JSON.parse(record.value!.toString())).toEqual({
      orderId: placed.orderId,
      paymentId: payment!.id,
      amount: '25.00',
      currency: 'EUR',
      reason: 'out_of_stock',
      refundedAt: expect.any(String) as unknown,
    });
    expect(headerValue(record.headers, EventHeaders.causationId)).toBe(sent.metadata.id);

    // The rejection again under a new id: already refunded, nothing more.
    await settled(await publish(Topics.inventory, 'stock.rejected', rejected));
    const types = (await paymentsFor(placed.orderId)).map((r) => headerValue(r.headers, EventHeaders.type));
    expect(types).toEqual(['payment.authorized', 'payment.refunded']);
  });

  it('dead-letters a stock.rejected for an order it has no payment for, as fatal', async () => {
    const orderId = randomUUID();
    const rejected: StockRejectedPayload = {
      orderId,
      missingSkus: ['SKU-X'],
      reason: 'out_of_stock',
      rejectedAt: new Date().toISOString(),
    };
    await publish(Topics.inventory, 'stock.rejected', rejected);
    const letter = await eventually(
      async () =>
        (await readTopic(kafka, prefix + deadLetterTopic('payment'))).find(
          (r) => r.key?.toString() === orderId,
        ),
      { what: 'the dead letter' },
    );
    expect(headerValue(letter.headers, DeadLetterHeaders.errorClass)).toBe('fatal');
    expect(headerValue(letter.headers, DeadLetterHeaders.attempts)).toBe('1');
    expect(headerValue(letter.headers, DeadLetterHeaders.error)).toContain(orderId);
    expect(await paymentRows(orderId)).toEqual([]);
  });
});
