import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeadLetterHeaders,
  EventHeaders,
  OrderConfirmedPayloadSchema,
  Topics,
  deadLetterTopic,
  encodeHeaders,
  headerValue,
  metadataOf,
} from '@pipeline/contracts';
import type { TestDatabase } from '../support/db';
import { readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort, type RunningProcess } from '../support/processes';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';
import { testProducer } from '../support/events';

// SMTP_URL points at a port nobody listens on: every send is refused. The email must be retried
// with backoff, then dead-lettered, and never recorded as sent.
describe('email-service with the SMTP server down', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.smtpdown')}.`;
  let group: string;
  let database: TestDatabase;
  let service: RunningProcess;
  let email: ServiceUnderTest;

  beforeAll(async () => {
    const closedPort = await freePort();
    email = await startService('email', {
      prefix,
      label: 'email_smtp_down',
      env: {
        SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
        CONSUMER_RETRY_INITIAL_BACKOFF_MS: '100',
        CONSUMER_RETRY_MAX_BACKOFF_MS: '400',
        // An SMTP server that never answers: the outage window is cut short to see the dead letter.
        CONSUMER_RETRY_OUTAGE_WINDOW_MS: '1500',
        KAFKA_TOPIC_PARTITIONS: '6',
      },
    });
    ({ group, database, process: service } = email);
  });

  afterAll(async () => {
    await email?.stop();
    await deletePrefixedTopics(kafka, prefix);
  });

  it('retries, dead-letters the event with error_class=retriable, and records nothing as sent', async () => {
    const recipient = `${uniqueName('smtpdown')}@example.test`;
    const order = OrderConfirmedPayloadSchema.parse({
      orderId: randomUUID(),
      customerId: 'c-smtp-down',
      customerEmail: recipient,
      items: [{ sku: 'MUG-BLUE', quantity: 1, unitPrice: '12.50' }],
      total: '12.50',
      currency: 'EUR',
      confirmedAt: new Date().toISOString(),
    });
    const headers = encodeHeaders(
      metadataOf(
        {
          topic: Topics.orders,
          key: order.orderId,
          type: 'order.confirmed',
          payload: order,
          correlationId: order.orderId,
        },
        'test-producer',
      ),
    );
    const producer = testProducer(kafka);
    await producer.connect();
    await producer.send({
      topic: prefix + Topics.orders,
      acks: -1,
      messages: [{ key: order.orderId, value: JSON.stringify(order), headers }],
    });
    await producer.disconnect();

    const letter = await eventually(
      async () =>
        (await readTopic(kafka, prefix + deadLetterTopic('email'))).find(
          (record) => headerValue(record.headers, EventHeaders.id) === headers[EventHeaders.id],
        ),
      { timeoutMs: 45_000, what: 'the dead-lettered confirmation' },
    );
    const header = (name: string) => headerValue(letter.headers, name);
    expect(header(DeadLetterHeaders.errorClass)).toBe('retriable');
    // Its 3 attempts, and as many more as fit in the outage window while its partition waited.
    expect(Number(header(DeadLetterHeaders.attempts))).toBeGreaterThanOrEqual(3);
    expect(header(DeadLetterHeaders.error)).toMatch(/SMTP send failed/);
    expect(header(DeadLetterHeaders.consumerGroup)).toBe(group);
    expect(JSON.parse(letter.value?.toString() ?? 'null')).toEqual(order);

    const sent = await database.withClient(
      async (client) => (await client.query('SELECT 1 FROM sent_emails')).rowCount,
    );
    expect(sent).toBe(0);
    expect(service.output()).toMatch(/attempt 2\/3, retriable/);
  });
});
