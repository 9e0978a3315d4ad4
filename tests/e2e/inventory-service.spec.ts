import { randomUUID } from 'node:crypto';
import type { Admin, KafkaMessage, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_STOCK_UNITS,
  EventHeaders,
  Topics,
  type OrderItem,
  type PaymentAuthorizedPayload,
  type StockChangedPayload,
  encodeHeaders,
  headerValue,
  metadataOf,
  type EventMetadata,
} from '@pipeline/contracts';
import type { TestDatabase } from '../support/db';
import { readEvents, testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';
import { testProducer } from '../support/events';

// inventory-service as a real process on its own test database and prefixed topics:
// payment.authorized in; stock.reserved / stock.rejected and the inventory.stock changelog out.
describe('inventory-service reserves all items or none', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e')}.`;
  const run = randomUUID().slice(0, 8).toUpperCase();
  let group: string;
  let database: TestDatabase;
  let service: ServiceUnderTest;
  let producer: Producer;
  let admin: Admin;
  let baseUrl: string;

  beforeAll(async () => {
    producer = testProducer(kafka);
    admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
    service = await startService('inventory', { prefix });
    ({ group, database, baseUrl } = service);
  });

  afterAll(async () => {
    await service?.stop();
    await Promise.all([producer?.disconnect(), admin?.disconnect()]);
    await deletePrefixedTopics(kafka, prefix);
  });

  async function authorize(items: OrderItem[], metadata?: EventMetadata) {
    const orderId = randomUUID();
    const payload: PaymentAuthorizedPayload = {
      orderId,
      paymentId: randomUUID(),
      customerId: 'customer-1',
      amount: '10.00',
      currency: 'EUR',
      items,
      authorizedAt: new Date().toISOString(),
    };
    return publish(payload, metadata);
  }

  async function publish(payload: PaymentAuthorizedPayload, metadata?: EventMetadata) {
    const event = { topic: Topics.payments, key: payload.orderId, type: 'payment.authorized', payload };
    const meta = metadata ?? metadataOf({ ...event, correlationId: payload.orderId }, 'test-producer');
    const [sent] = await producer.send({
      topic: prefix + Topics.payments,
      acks: -1,
      messages: [{ key: payload.orderId, value: JSON.stringify(payload), headers: encodeHeaders(meta) }],
    });
    return { payload, metadata: meta, partition: sent!.partition, offset: sent!.baseOffset! };
  }

  const type = (record: KafkaMessage) => headerValue(record.headers, EventHeaders.type);
  const valueOf = <T>(record: KafkaMessage) => JSON.parse(record.value!.toString()) as T;
  const outcomes = async (orderIds: readonly string[]) =>
    (await readEvents(kafka, prefix + Topics.inventory)).filter((r) =>
      orderIds.includes(r.key?.toString() ?? ''),
    );
  const changelog = async (sku: string) =>
    (await readEvents(kafka, prefix + Topics.inventoryStock)).filter((r) => r.key?.toString() === sku);
  const outcomeOf = (orderId: string) =>
    eventually(async () => (await outcomes([orderId]))[0], { what: `the outcome of order ${orderId}` });

  async function level(sku: string): Promise<StockChangedPayload> {
    const response = await fetch(`${baseUrl}/inventory/${sku}`);
    expect(response.status).toBe(200);
    return (await response.json()) as StockChangedPayload;
  }

  async function restock(sku: string, available: number): Promise<void> {
    const response = await fetch(`${baseUrl}/inventory/${sku}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ available }),
    });
    expect(response.status).toBe(201);
  }

  const item = (sku: string, quantity: number): OrderItem => ({ sku, quantity, unitPrice: '1.00' });

  it('seeds the demo catalogue on start and publishes each seeded SKU to inventory.stock', async () => {
    expect(await level('SKU-APPLE')).toMatchObject({
      sku: 'SKU-APPLE',
      available: DEMO_STOCK_UNITS,
      reserved: 0,
    });
    expect(await level('SKU-NECTARINE')).toMatchObject({ available: DEMO_STOCK_UNITS, reserved: 0 });
    expect(await level('SKU-RARE')).toMatchObject({ sku: 'SKU-RARE', available: 0, reserved: 0 });
    const records = await eventually(async () => {
      const found = await changelog('SKU-RARE');
      return found.length > 0 ? found : undefined;
    });
    expect(records).toHaveLength(1);
    expect(valueOf(records[0]!)).toMatchObject({ sku: 'SKU-RARE', available: 0, reserved: 0 });
    expect(headerValue(records[0]!.headers, EventHeaders.source)).toBe('inventory-service');
  });

  it('reserves every line (duplicate SKUs merged), moves the units and publishes the changes', async () => {
    const [a, b] = [`T-${run}-A`, `T-${run}-B`];
    await restock(a, 10);
    await restock(b, 5);
    const sent = await authorize([item(a, 2), item(b, 1), item(a, 1)]);
    const record = await outcomeOf(sent.payload.orderId);
    expect(type(record)).toBe('stock.reserved');
    expect(valueOf(record)).toEqual({
      orderId: sent.payload.orderId,
      items: [
        { sku: a, quantity: 2 },
        { sku: b, quantity: 1 },
        { sku: a, quantity: 1 },
      ],
      reservedAt: expect.any(String) as unknown,
    });
    expect(headerValue(record.headers, EventHeaders.causationId)).toBe(sent.metadata.id);
    expect(headerValue(record.headers, EventHeaders.correlationId)).toBe(sent.payload.orderId);
    expect(await level(a)).toMatchObject({ available: 7, reserved: 3 });
    expect(await level(b)).toMatchObject({ available: 4, reserved: 1 });
    const latest = await eventually(async () =>
      (await changelog(a)).find((r) => valueOf<StockChangedPayload>(r).reserved === 3),
    );
    expect(valueOf(latest)).toMatchObject({ sku: a, available: 7, reserved: 3 });
    expect(headerValue(latest.headers, EventHeaders.causationId)).toBe(sent.metadata.id);

    // The same event again, and the same order under a new event id: nothing more.
    await publish(sent.payload, sent.metadata);
    const again = await publish(sent.payload);
    await settled(again.partition, again.offset);
    expect(await level(a)).toMatchObject({ available: 7, reserved: 3 });
    expect((await outcomes([sent.payload.orderId])).map(type)).toEqual(['stock.reserved']);
  });

  it('rejects the whole order naming the missing SKUs (short and unknown), reserving nothing', async () => {
    const [a, b, unknown] = [`T-${run}-C`, `T-${run}-D`, `T-${run}-UNKNOWN`];
    await restock(a, 10);
    await restock(b, 1);
    const sent = await authorize([item(unknown, 1), item(a, 3), item(b, 2)]);
    const record = await outcomeOf(sent.payload.orderId);
    expect(type(record)).toBe('stock.rejected');
    expect(valueOf(record)).toEqual({
      orderId: sent.payload.orderId,
      missingSkus: [b, unknown],
      reason: 'out_of_stock',
      rejectedAt: expect.any(String) as unknown,
    });
    expect(await level(a)).toMatchObject({ available: 10, reserved: 0 });
    expect(await level(b)).toMatchObject({ available: 1, reserved: 0 });
    const status = await database.withClient((c) =>
      c.query<{ status: string }>('SELECT status::text FROM reservations WHERE order_id = $1', [
        sent.payload.orderId,
      ]),
    );
    expect(status.rows).toEqual([{ status: 'REJECTED' }]);
  });

  it('20 concurrent orders for a SKU with 10 units: exactly 10 reserved, never negative', async () => {
    const sku = `T-${run}-HOT`;
    await restock(sku, 10);
    const sent = await Promise.all(Array.from({ length: 20 }, () => authorize([item(sku, 1)])));
    const orderIds = sent.map((s) => s.payload.orderId);
    const records = await eventually(async () => {
      const found = await outcomes(orderIds);
      return found.length >= 20 ? found : undefined;
    });
    expect(records).toHaveLength(20);
    expect(records.filter((r) => type(r) === 'stock.reserved')).toHaveLength(10);
    expect(records.filter((r) => type(r) === 'stock.rejected')).toHaveLength(10);
    expect(await level(sku)).toMatchObject({ available: 0, reserved: 10 });
    // The restock, then one change per reservation.
    const history = await eventually(async () => {
      const found = (await changelog(sku)).map((r) => valueOf<StockChangedPayload>(r));
      return found.length >= 11 ? found : undefined;
    });
    expect(history).toHaveLength(11);
    for (const change of history) {
      expect(change.available).toBeGreaterThanOrEqual(0);
      expect(change.available + change.reserved).toBe(10);
    }
    // The database refuses to go below zero even when asked directly (check_violation).
    await expect(
      database.withClient((c) => c.query('UPDATE stock SET available = available - 1 WHERE sku = $1', [sku])),
    ).rejects.toMatchObject({ code: '23514' });
  });

  /** The consumer committed past the record and the outbox relay published what it wrote. */
  async function settled(partition: number, offset: string): Promise<void> {
    const topic = prefix + Topics.payments;
    await eventually(async () => {
      const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      const committed = offsets?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
      const { rows } = await database.withClient((c) =>
        c.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox'),
      );
      return BigInt(committed) > BigInt(offset) && rows[0]?.n === 0 ? true : undefined;
    });
  }
});
