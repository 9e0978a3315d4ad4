import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeadLetterHeaders,
  EventHeaders,
  OrderConfirmedPayloadSchema,
  Topics,
  deadLetterTopic,
} from '@pipeline/contracts';
import { encodeHeaders, headerValue, metadataOf } from '@pipeline/messaging';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { KAFKA_BROKERS, readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from '../support/processes';

// SMTP_URL points at a port nobody listens on: every send is refused. The email must be retried
// with backoff, then dead-lettered, and never recorded as sent.
describe('email-service with the SMTP server down', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.smtpdown')}.`;
  const group = uniqueName('e2e.smtpdown.group');
  let database: TestDatabase;
  let service: RunningProcess;

  beforeAll(async () => {
    database = await createTestDatabase('e2e_email_smtp_down');
    execFileSync(
      process.execPath,
      ['scripts/db/migrate.mjs', 'deploy', '--service', 'email', '--url', database.url],
      {
        cwd: REPO_ROOT,
        stdio: 'pipe',
      },
    );
    const [port, closedPort] = [await freePort(), await freePort()];
    service = startNode(join(REPO_ROOT, 'dist/apps/email-service/src/main.js'), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_CONSUMER_GROUP: group,
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_TOPIC_PARTITIONS: '6',
      SMTP_URL: `smtp://127.0.0.1:${closedPort}`,
      CONSUMER_RETRY_INITIAL_BACKOFF_MS: '100',
      CONSUMER_RETRY_MAX_BACKOFF_MS: '400',
      LOG_FORMAT: 'json',
    });
    await eventually(
      async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok ? true : undefined),
      {
        timeoutMs: 60_000,
        what: 'email-service ready',
      },
    );
  });

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    const admin = kafka.admin();
    await admin.connect();
    if (!admin) return;
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    await admin.disconnect();
    await database?.drop();
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
    const producer = kafka.producer({ allowAutoTopicCreation: false });
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
    expect(header(DeadLetterHeaders.attempts)).toBe('3');
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
