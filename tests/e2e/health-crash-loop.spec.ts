// A record batch that no client can decode, made the way it happens in the field: a batch
// corrupted on the broker's disk (the broker serves its log as it is; it checks no batch on fetch).
// kcat (librdkafka) writes a zstd batch of three records to payment-service's `orders`, the test
// overwrites its compressed bytes in the segment file, then:
// - with CONSUMER_UNDECODABLE_BATCH=stop, the group halts at the batch, crash-looping with backoff,
//   and /health/live fails within the stall timeout, naming the crash loop (the lag read cannot
//   hide it);
// - with the default (dead-letter), the same group records the batch's offset range in
//   payment.dead-letter once, moves past it, and processes the order behind it.
import { execFile } from 'node:child_process';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { createServedTopics } from '@pipeline/messaging';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeadLetterHeaders,
  Topics,
  UNDECODABLE_BATCH,
  deadLetterTopic,
  headerValue,
  type OrderPlacedPayload,
} from '@pipeline/contracts';
import { committedPast, produceEvent, testProducer } from '../support/events';
import { KAFKA_BROKERS, kcatProducerArgs, readTopic, testKafka, uniqueName } from '../support/kafka';
import { REPO_ROOT, eventually } from '../support/processes';
import { scrape, sum } from '../support/prometheus';
import {
  deletePrefixedTopics,
  httpJson,
  startService,
  type ServiceUnderTest,
} from '../support/service-harness';

const exec = promisify(execFile);
const STALL_TIMEOUT_MS = 4_000;
/** baseOffset, length, leader epoch, magic, crc, attributes, ... record count: then the records. */
const RECORD_BATCH_HEADER_BYTES = 61;

interface Health {
  readonly status: string;
  readonly error?: {
    progress?: { message: string; crashLoop?: { crashes: number; loopingMs: number; lastError: string } };
  };
}

/** The broker's log directory of a partition, as Kafka's own log-dirs tool reports it. */
async function partitionDir(topic: string, partition: number): Promise<string> {
  const { stdout } = await exec(
    join(REPO_ROOT, 'infra/bin/kafka-log-dirs.sh'),
    ['--bootstrap-server', KAFKA_BROKERS.join(','), '--describe', '--topic-list', topic],
    { timeout: 60_000 },
  );
  const json = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    brokers: { logDirs: { logDir: string; partitions: { partition: string }[] }[] }[];
  };
  const name = `${topic}-${partition}`;
  const dir = json.brokers
    .flatMap((b) => b.logDirs)
    .find((d) => d.partitions.some((p) => p.partition === name));
  if (dir === undefined) throw new Error(`no log dir holds ${name}: is the broker on this machine?`);
  return join(dir.logDir, name);
}

/** Overwrites the compressed records of the first batch of a segment, keeping its length. */
async function corruptFirstBatch(segment: string): Promise<void> {
  const file = await open(segment, 'r+');
  try {
    const header = Buffer.alloc(12);
    await file.read(header, 0, 12, 0);
    const batchBytes = 12 + header.readInt32BE(8);
    const garbage = Buffer.alloc(batchBytes - RECORD_BATCH_HEADER_BYTES - 4, 0x5a);
    await file.write(garbage, 0, garbage.length, RECORD_BATCH_HEADER_BYTES + 4);
  } finally {
    await file.close();
  }
}

describe('an undecodable batch on disk: stop (liveness fails on the crash loop) or dead-letter (moves on)', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.crashloop')}.`;
  const orders = prefix + Topics.orders;
  const group = uniqueName('crashloop.group');
  let admin: Admin;
  let producer: Producer;
  const services: ServiceUnderTest[] = [];

  beforeAll(async () => {
    admin = kafka.admin();
    producer = testProducer(kafka);
    await Promise.all([admin.connect(), producer.connect()]);
    await createServedTopics(admin, [{ topic: orders, numPartitions: 1 }]);
    // Three well-formed-looking records in one zstd batch, written by librdkafka.
    const child = exec('kcat', [...kcatProducerArgs(orders, 0), '-z', 'zstd', '-K', ':'], {
      timeout: 30_000,
    });
    child.child.stdin?.end(['a', 'b', 'c'].map((k) => `${k}:${'{"x":1}'.repeat(40)}`).join('\n') + '\n');
    await child;
    await corruptFirstBatch(join(await partitionDir(orders, 0), '00000000000000000000.log'));
  }, 120_000);

  afterAll(async () => {
    for (const service of services.splice(0)) await service.stop();
    await Promise.all([producer?.disconnect(), admin?.disconnect()]);
    await deletePrefixedTopics(kafka, prefix);
  });

  it('stop: the group crash-loops at the batch, and /health/live fails within the stall timeout', async () => {
    const payment = await startService('payment', {
      prefix,
      group,
      label: 'crashloop_stop',
      env: { HEALTH_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS), CONSUMER_UNDECODABLE_BATCH: 'stop' },
    });
    services.push(payment);
    const startedAt = Date.now();
    const down = await eventually(
      async () => {
        const answer = await httpJson<Health>('GET', `${payment.baseUrl}/health/live`);
        if (answer.status !== 503) return undefined;
        // The partition's stall (lag, no progress for the stall timeout) may be named first, when
        // the first crash came late (a slow start); the crash loop once it has gone on that long.
        return answer.body.error?.progress?.crashLoop === undefined ? undefined : answer.body;
      },
      { what: '/health/live 503 naming the crash loop', timeoutMs: 90_000, intervalMs: 250 },
    );
    // Within the stall timeout, give or take a restart (backoff 1 s, then a rejoin): the answer that
    // names the crash loop, and with it any 503 before it.
    expect(Date.now() - startedAt).toBeLessThan(STALL_TIMEOUT_MS + 30_000);
    const crashLoop = down.error?.progress?.crashLoop;
    expect(crashLoop?.crashes).toBeGreaterThanOrEqual(2);
    expect(crashLoop?.loopingMs).toBeGreaterThanOrEqual(STALL_TIMEOUT_MS);
    expect(crashLoop?.lastError).toContain(`undecodable record batch ${orders}/0@0-2 (zstd)`);
    expect(down.error?.progress?.message).toContain('crash-looping');
    const metrics = await scrape(payment.baseUrl);
    expect(
      sum(metrics, 'pipeline_consumer_undecodable_batches_total', { topic: orders }),
    ).toBeGreaterThanOrEqual(2);
    // Nothing moved: the batch and everything behind it wait for a person.
    const [committed] = await admin.fetchOffsets({ groupId: group, topics: [orders] });
    expect(Number(committed?.partitions[0]?.offset ?? -1)).toBeLessThanOrEqual(0);
    await payment.stop();
  }, 180_000);

  it('dead-letter (default): one letter names the range, the partition moves on, the order behind it is processed', async () => {
    const orderId = randomUUID();
    const order: OrderPlacedPayload = {
      orderId,
      customerId: 'c-crashloop',
      customerEmail: 'crashloop@example.test',
      items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
      total: '1.25',
      currency: 'EUR',
      placedAt: new Date().toISOString(),
    };
    // The topic has one partition: the order lands behind the corrupt batch.
    const sent = await produceEvent(producer, {
      topic: orders,
      key: orderId,
      type: 'order.placed',
      payload: order,
      correlationId: orderId,
    });
    const payment = await startService('payment', { prefix, group, label: 'crashloop_dlt' });
    services.push(payment);
    await committedPast(admin, group, [sent], 60_000);
    const payments = await payment.database.withClient((client) =>
      client.query('SELECT order_id FROM payments WHERE order_id = $1', [orderId]),
    );
    expect(payments.rowCount).toBe(1);
    const letters = (await readTopic(kafka, prefix + deadLetterTopic('payment'))).filter(
      (letter) => headerValue(letter.headers, DeadLetterHeaders.consumerGroup) === group,
    );
    expect(letters).toHaveLength(1);
    const header = (name: string) => headerValue(letters[0]!.headers, name);
    expect(letters[0]!.value).toBeNull();
    expect(header(DeadLetterHeaders.originalTopic)).toBe(orders);
    expect(header(DeadLetterHeaders.originalPartition)).toBe('0');
    expect(header(DeadLetterHeaders.originalOffset)).toBe('0');
    expect(header(DeadLetterHeaders.originalLastOffset)).toBe('2');
    expect(header(DeadLetterHeaders.errorCode)).toBe(UNDECODABLE_BATCH);
    expect(header(DeadLetterHeaders.errorClass)).toBe('fatal');
    expect((await httpJson('GET', `${payment.baseUrl}/health/live`)).status).toBe(200);
  }, 120_000);
});
