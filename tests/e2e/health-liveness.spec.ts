// /health/live fails when the process is wedged: a partition of its consumer has had lag and no
// progress (no attempt at its records finished) for HEALTH_STALL_TIMEOUT_MS. Real services on the
// shared broker and Postgres, each on its own prefixed topics, database and group:
// - payment-service whose consumer transaction waits on a lock that is never released (an await
//   that does not return) turns not live, naming the partition, and live again once it returns;
// - with no lag it stays live; email-service retrying a refused SMTP server with backoff (its
//   partition paused between attempts, its offset not moving) stays live.
import { randomUUID } from 'node:crypto';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Topics,
  type OrderConfirmedPayload,
  type OrderPlacedPayload,
  encodeHeaders,
  metadataOf,
} from '@pipeline/contracts';
import { testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort } from '../support/processes';
import { scrape, sum } from '../support/prometheus';
import {
  deletePrefixedTopics,
  httpJson,
  startService,
  type ServiceUnderTest,
} from '../support/service-harness';
import { testProducer } from '../support/events';

const STALL_TIMEOUT_MS = 3_000;
/** Three times the longest gap between two attempts of the backoff case below. */
const BACKOFF_STALL_TIMEOUT_MS = 6_000;

interface Stalled {
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
  readonly stalledMs: number;
}
interface Health {
  readonly status: string;
  readonly info?: { progress?: { assignment: Record<string, number[]> } };
  readonly error?: { progress?: { stalled: Stalled[]; message: string } };
}

const live = (service: ServiceUnderTest) => httpJson<Health>('GET', `${service.baseUrl}/health/live`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('/health/live follows the consumer’s progress', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.live')}.`;
  let producer: Producer;
  let admin: Admin;
  const services: ServiceUnderTest[] = [];

  beforeAll(async () => {
    producer = testProducer(kafka);
    admin = kafka.admin();
    await Promise.all([producer.connect(), admin.connect()]);
  });

  afterAll(async () => {
    for (const service of services.splice(0)) await service.stop();
    await Promise.all([producer?.disconnect(), admin?.disconnect()]);
    await deletePrefixedTopics(kafka, prefix);
  });

  async function publish(
    type: string,
    payload: { orderId: string },
  ): Promise<{ partition: number; offset: string }> {
    const event = {
      topic: Topics.orders,
      key: payload.orderId,
      type,
      payload,
      correlationId: payload.orderId,
    };
    const [sent] = await producer.send({
      topic: prefix + Topics.orders,
      acks: -1,
      messages: [
        {
          key: payload.orderId,
          value: JSON.stringify(payload),
          headers: encodeHeaders(metadataOf(event, 'test-producer')),
        },
      ],
    });
    return { partition: sent!.partition, offset: sent!.baseOffset! };
  }

  async function committed(group: string, partition: number): Promise<bigint> {
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [prefix + Topics.orders] });
    return BigInt(offsets?.partitions.find((p) => p.partition === partition)?.offset ?? '-1');
  }

  /** Polls /health/live for `ms` (and until `until` holds): every answer must be 200. */
  async function liveThroughout(service: ServiceUnderTest, ms: number, until: () => Promise<boolean>) {
    const start = Date.now();
    let answers = 0;
    while (Date.now() - start < ms || !(await until())) {
      const answer = await live(service);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      answers += 1;
      await pause(250);
    }
    return answers;
  }

  it('payment-service: live with no lag; not live, naming the partition, while a transaction hangs; live once it returns', async () => {
    const payment = await startService('payment', {
      prefix,
      label: 'live_payment',
      // Postgres never cancels the lock wait below: the transaction hangs as long as the lock is held.
      env: { HEALTH_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS), DATABASE_STATEMENT_TIMEOUT_MS: '600000' },
    });
    services.push(payment);
    await eventually(
      async () =>
        (await live(payment)).body.info?.progress?.assignment[prefix + Topics.orders]?.length
          ? true
          : undefined,
      {
        what: 'orders partitions assigned',
      },
    );
    await liveThroughout(payment, 2 * STALL_TIMEOUT_MS, () => Promise.resolve(true));

    // Every consumer transaction starts by claiming its events in the inbox: it waits for this lock.
    const locker = await payment.database.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE inbox IN SHARE MODE');
      const order: OrderPlacedPayload = {
        orderId: randomUUID(),
        customerId: 'c-live',
        customerEmail: 'live@example.test',
        items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
        total: '1.25',
        currency: 'EUR',
        placedAt: new Date().toISOString(),
      };
      const sent = await publish('order.placed', order);
      // The lag is new: its clock starts at this reading.
      expect((await live(payment)).status).toBe(200);

      const down = await eventually(
        async () => {
          const answer = await live(payment);
          return answer.status === 503 ? answer.body : undefined;
        },
        { what: '/health/live 503', timeoutMs: 60_000, intervalMs: 250 },
      );
      expect(down.error?.progress?.stalled).toContainEqual({
        topic: prefix + Topics.orders,
        partition: sent.partition,
        lag: 1,
        stalledMs: expect.any(Number) as number,
      });
      const stalled = down.error!.progress!.stalled.find((entry) => entry.partition === sent.partition)!;
      expect(stalled.stalledMs).toBeGreaterThanOrEqual(STALL_TIMEOUT_MS);
      expect(down.error?.progress?.message).toContain(`${prefix}${Topics.orders}/${sent.partition}`);
      // Wedged is not unready: the database answers.
      expect((await httpJson('GET', `${payment.baseUrl}/health/ready`)).status).toBe(200);
      expect(await committed(payment.group, sent.partition)).toBeLessThanOrEqual(BigInt(sent.offset));

      await locker.query('COMMIT');
      await eventually(
        async () =>
          (await committed(payment.group, sent.partition)) > BigInt(sent.offset) ? true : undefined,
        {
          what: 'the order committed once the lock is gone',
        },
      );
      await eventually(async () => ((await live(payment)).status === 200 ? true : undefined), {
        what: '/health/live 200 again',
      });
    } finally {
      await locker.end();
    }
  }, 180_000);

  it('email-service: live while its partition waits out backoff against a refused SMTP server', async () => {
    const email = await startService('email', {
      prefix,
      label: 'live_email',
      env: {
        SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
        // Between two attempts: the backoff, then up to two fetches that wait for more bytes.
        HEALTH_STALL_TIMEOUT_MS: String(BACKOFF_STALL_TIMEOUT_MS),
        CONSUMER_RETRY_ATTEMPTS: '1000',
        CONSUMER_RETRY_INITIAL_BACKOFF_MS: '500',
        CONSUMER_RETRY_MAX_BACKOFF_MS: '1000',
        KAFKA_FETCH_MAX_WAIT_MS: '500',
      },
    });
    services.push(email);
    const order: OrderConfirmedPayload = {
      orderId: randomUUID(),
      customerId: 'c-live',
      customerEmail: 'live@example.test',
      items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
      total: '1.25',
      currency: 'EUR',
      confirmedAt: new Date().toISOString(),
    };
    const sent = await publish('order.confirmed', order);
    const retried = async () =>
      sum(await scrape(email.baseUrl), 'pipeline_events_retried_total', { topic: prefix + Topics.orders });
    await eventually(async () => ((await retried()) > 0 ? true : undefined), { what: 'a first retry' });
    // Three stall timeouts of lag without the offset moving, and still live.
    await liveThroughout(email, 3 * BACKOFF_STALL_TIMEOUT_MS, async () => (await retried()) >= 5);
    expect(await committed(email.group, sent.partition)).toBeLessThanOrEqual(BigInt(sent.offset));
  }, 180_000);
});
