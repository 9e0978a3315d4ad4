import { randomUUID } from 'node:crypto';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventHeaders,
  OrderCancelledPayloadSchema,
  OrderConfirmedPayloadSchema,
  Topics,
  type OrderItem,
  encodeHeaders,
  metadataOf,
} from '@pipeline/contracts';
import type { TestDatabase } from '../support/db';
import { testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import {
  deletePrefixedTopics,
  emailsTo,
  startService,
  type ServiceUnderTest,
} from '../support/service-harness';
import { testProducer } from '../support/events';

const items: OrderItem[] = [
  { sku: 'MUG-BLUE', quantity: 2, unitPrice: '12.50' },
  { sku: 'TEA-<GREEN>', quantity: 3, unitPrice: '0.10' },
];

// A running email-service consumes `orders` (under its own topic prefix) and mails maildev.
describe('email-service sends one email per terminal order event', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.email')}.`;
  let group: string;
  let database: TestDatabase;
  let service: ServiceUnderTest;
  let producer: Producer;
  let admin: Admin;

  beforeAll(async () => {
    admin = kafka.admin();
    producer = testProducer(kafka);
    await Promise.all([admin.connect(), producer.connect()]);
    service = await startService('email', { prefix, env: { KAFKA_TOPIC_PARTITIONS: '6' } });
    ({ group, database } = service);
  });

  afterAll(async () => {
    await service?.stop();
    await Promise.all([producer?.disconnect(), admin?.disconnect()]);
    await deletePrefixedTopics(kafka, prefix);
  });

  /** Produces an orders record with CloudEvents headers; `headers` re-sends an earlier one (same ce_id). */
  async function publish(type: string, payload: { orderId: string }, headers?: Record<string, string>) {
    const sent =
      headers ??
      encodeHeaders(
        metadataOf(
          { topic: Topics.orders, key: payload.orderId, type, payload, correlationId: payload.orderId },
          'test-producer',
        ),
      );
    const [meta] = await producer.send({
      topic: prefix + Topics.orders,
      acks: -1,
      messages: [{ key: payload.orderId, value: JSON.stringify(payload), headers: sent }],
    });
    return {
      headers: sent,
      eventId: sent[EventHeaders.id]!,
      partition: meta!.partition,
      offset: meta!.baseOffset!,
    };
  }

  /** The service committed its offset past this record: it was processed (or skipped as a duplicate). */
  const processed = (record: { partition: number; offset: string }) =>
    eventually(
      async () => {
        const [topic] = await admin.fetchOffsets({ groupId: group, topics: [prefix + Topics.orders] });
        const committed = topic?.partitions.find((p) => p.partition === record.partition)?.offset ?? '-1';
        return BigInt(committed) > BigInt(record.offset) ? true : undefined;
      },
      { what: `offset ${record.offset} committed` },
    );

  const sentRows = (eventId: string) =>
    database.withClient(async (client) => {
      const result = await client.query<{ kind: string; recipient: string; message_id: string }>(
        'SELECT kind, recipient, message_id FROM sent_emails WHERE event_id = $1',
        [eventId],
      );
      return result.rows;
    });

  it('sends exactly one confirmation with the lines, the total and a Message-ID derived from the event id, even when redelivered', async () => {
    const recipient = `${uniqueName('confirmed')}@example.test`;
    const order = OrderConfirmedPayloadSchema.parse({
      orderId: randomUUID(),
      customerId: 'c-email',
      customerEmail: recipient,
      items,
      total: '25.30',
      currency: 'EUR',
      confirmedAt: new Date().toISOString(),
    });
    const first = await publish('order.confirmed', order);

    const [email] = await eventually(
      async () => ((await emailsTo(recipient)).length > 0 ? emailsTo(recipient) : undefined),
      {
        what: 'the confirmation email',
      },
    );
    expect(email?.subject).toBe(`Your order ${order.orderId} is confirmed`);
    expect(email?.headers['message-id']).toBe(`<${first.eventId}@order-pipeline.local>`);
    expect(email?.text).toContain('2 × MUG-BLUE at 12.50 EUR = 25.00 EUR');
    expect(email?.text).toContain('3 × TEA-<GREEN> at 0.10 EUR = 0.30 EUR');
    expect(email?.text).toContain('Total: 25.30 EUR');
    expect(email?.html).toContain('TEA-&lt;GREEN&gt;');
    expect(email?.html).not.toContain('TEA-<GREEN>');
    await processed(first);
    expect(await sentRows(first.eventId)).toEqual([
      { kind: 'CONFIRMATION', recipient, message_id: `<${first.eventId}@order-pipeline.local>` },
    ]);

    // The same event again (same ce_id): deduplicated, no second email.
    const again = await publish('order.confirmed', order, first.headers);
    await processed(again);
    expect(await emailsTo(recipient)).toHaveLength(1);
    expect(await sentRows(first.eventId)).toHaveLength(1);
  });

  it('sends one cancellation email with the reason in words', async () => {
    const recipient = `${uniqueName('cancelled')}@example.test`;
    const order = OrderCancelledPayloadSchema.parse({
      orderId: randomUUID(),
      customerId: 'c-email',
      customerEmail: recipient,
      items,
      total: '25.30',
      currency: 'EUR',
      reason: 'out_of_stock',
      cancelledAt: new Date().toISOString(),
    });
    const record = await publish('order.cancelled', order);

    const [email] = await eventually(
      async () => ((await emailsTo(recipient)).length > 0 ? emailsTo(recipient) : undefined),
      {
        what: 'the cancellation email',
      },
    );
    expect(email?.subject).toBe(`Your order ${order.orderId} was cancelled`);
    expect(email?.text).toContain('some items are out of stock; your payment has been refunded');
    expect(email?.text).toContain('Total: 25.30 EUR');
    expect(email?.headers['message-id']).toBe(`<${record.eventId}@order-pipeline.local>`);
    await processed(record);
    expect(await emailsTo(recipient)).toHaveLength(1);
    expect((await sentRows(record.eventId)).map((row) => row.kind)).toEqual(['CANCELLATION']);
  });
});
