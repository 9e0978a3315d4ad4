// Readiness means "can take this traffic": with its broker stopped, order-service still takes
// POST /orders (the order and its event land in the database and the outbox), so it stays ready
// and alive, and reports the broker and its consumer at /health/consumer instead. On a broker of
// the suite's own (tests/faults/support/own-kafka.ts): the shared 127.0.0.1:9092 is never stopped.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Topics, headerValue } from '@pipeline/contracts';
import { createKafka } from '@pipeline/messaging';
import { readTopic, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { httpJson, startService, type ServiceUnderTest } from '../support/service-harness';
import { startOwnKafkaNode, type OwnKafkaNode } from './support/own-kafka';

interface Health {
  readonly status: string;
  readonly info?: Record<string, unknown>;
  readonly error?: Record<string, { status: string; message?: string }>;
}

describe('fault: Kafka stopped under order-service', () => {
  let kafka: OwnKafkaNode;
  let order: ServiceUnderTest;
  const health = (path: string) => httpJson<Health>('GET', `${order.baseUrl}/health/${path}`);

  beforeAll(async () => {
    kafka = await startOwnKafkaNode();
    order = await startService('order', {
      prefix: `${uniqueName('kafkadown')}.`,
      label: 'kafka_down',
      env: { KAFKA_BROKERS: kafka.brokers.join(',') },
    });
  }, 420_000);

  afterAll(async () => {
    await order?.stop();
    await kafka?.destroy();
  }, 120_000);

  it('stays ready and live, takes POST /orders, and publishes the order once the broker is back', async () => {
    await kafka.stop();

    // Once the service has noticed (/health/consumer fails), readiness, which a broker outage
    // does not concern, holds.
    const consumer = await eventually(
      async () => {
        const answer = await health('consumer');
        return answer.status === 200 ? undefined : answer;
      },
      { what: '/health/consumer reporting the broker gone', timeoutMs: 60_000 },
    );
    const ready = await health('ready');
    expect(ready.status).toBe(200);
    expect(ready.body.info).toHaveProperty('database');
    expect(consumer.status).toBe(503);
    expect(consumer.body.error?.kafka?.status).toBe('down');

    const customerEmail = `${uniqueName('kafkadown')}@example.test`;
    const placed = await httpJson<{ orderId: string; status: string }>(
      'POST',
      `${order.baseUrl}/orders`,
      {
        customerId: 'c-kafka-down',
        customerEmail,
        items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
      },
      { 'Idempotency-Key': randomUUID() },
    );
    expect(placed).toMatchObject({ status: 202, body: { status: 'PENDING' } });
    expect((await health('ready')).status).toBe(200);
    expect((await health('live')).status).toBe(200);

    await kafka.start();
    const client = createKafka({ brokers: kafka.brokers, clientId: uniqueName('kafkadown-reader') });
    const event = await eventually(
      async () =>
        (await readTopic(client, order.prefix + Topics.orders)).find(
          (record) => record.key?.toString() === placed.body.orderId,
        ),
      { what: 'order.placed published after the broker came back', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    expect(headerValue(event.headers, 'ce_type')).toBe('order.placed');
    await eventually(async () => ((await health('consumer')).status === 200 ? true : undefined), {
      what: 'the consumer back in its group',
      timeoutMs: 120_000,
    });
    expect((await health('ready')).status).toBe(200);
  }, 600_000);
});
