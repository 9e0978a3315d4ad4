import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type Admin, ConfigResourceTypes, type Kafka, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CATALOGUE,
  EventHeaders,
  Topics,
  type StockChangedPayload,
  headerValue,
} from '@pipeline/contracts';
import { createTestDatabase, type TestDatabase } from '../support/db';
import {
  createTestTopics,
  KAFKA_BROKERS,
  readEvents,
  readTopic,
  testKafka,
  uniqueName,
} from '../support/kafka';
import { partitionSize } from '../support/log-dirs';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from '../support/processes';
import { OrderServiceUnderTest } from './order-service.harness';

/** Per key, the values of its records in log order (null = tombstone). */
function valuesByKey(records: readonly KafkaMessage[]): Map<string, (StockChangedPayload | null)[]> {
  const byKey = new Map<string, (StockChangedPayload | null)[]>();
  for (const record of records) {
    const key = record.key?.toString() ?? '';
    const value = record.value === null ? null : (JSON.parse(record.value.toString()) as StockChangedPayload);
    byKey.set(key, [...(byKey.get(key) ?? []), value]);
  }
  return byKey;
}

// inventory.stock is compacted: Kafka keeps (at least) the last record per SKU and drops the
// rest once a segment is closed and the log cleaner has run. The topic is created here, before
// inventory-service starts (provisioning leaves an existing topic alone), with a cleaner-friendly
// config, but without segment rolling at first, so nothing can be compacted before we measure.
describe('inventory.stock is a compacted changelog', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.compaction')}.`;
  const topic = prefix + Topics.inventoryStock;
  const base = `LOG-${randomUUID().slice(0, 8).toUpperCase()}`;
  const skus = Array.from({ length: 10 }, (_, i) => `${base}-${i}`);
  const rollSku = `${base}-ROLL`;
  const fastCleaning = [
    { name: 'cleanup.policy', value: 'compact' },
    { name: 'min.cleanable.dirty.ratio', value: '0.001' },
    { name: 'min.compaction.lag.ms', value: '0' },
    { name: 'delete.retention.ms', value: '100' },
    { name: 'file.delete.delay.ms', value: '0' },
  ];
  let admin: Admin;
  let database: TestDatabase;
  let service: RunningProcess;
  let baseUrl: string;
  let rolls = 0;

  beforeAll(async () => {
    ({ admin } = await createTestTopics(kafka, [
      { name: topic, partitions: 1, configEntries: fastCleaning },
    ]));
    database = await createTestDatabase('e2e_compaction');
    execFileSync(
      process.execPath,
      ['scripts/db/migrate.mjs', 'deploy', '--service', 'inventory', '--url', database.url],
      {
        cwd: REPO_ROOT,
        stdio: 'pipe',
      },
    );
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    service = startNode(join(REPO_ROOT, 'dist/apps/inventory-service/src/main.js'), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_TOPIC_PARTITIONS: '1',
      KAFKA_CONSUMER_GROUP: uniqueName('e2e.compaction'),
      LOG_FORMAT: 'json',
    });
    await eventually(async () => ((await fetch(`${baseUrl}/health/ready`)).ok ? true : undefined), {
      timeoutMs: 60_000,
      what: 'inventory-service ready',
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${service.output().slice(-3000)}`);
    });
  });

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    if (admin) {
      const topics = (await admin.listTopics()).filter((name) => name.startsWith(prefix));
      if (topics.length > 0) await admin.deleteTopics({ topics });
      await admin.disconnect();
    }
    await database?.drop();
  });

  const request = (method: string, sku: string, body?: unknown) =>
    fetch(`${baseUrl}/inventory/${sku}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /**
   * The cleaner only compacts closed segments and a segment only rolls on an append. Each probe
   * makes one more change (to a SKU of its own, ignored by the assertions) so the segment holding
   * the records under test gets closed, then reads the whole topic until `done` holds.
   */
  const afterCompaction = (
    done: (byKey: Map<string, (StockChangedPayload | null)[]>) => boolean,
    what: string,
  ) =>
    eventually(
      async () => {
        expect((await request('PUT', rollSku, { available: ++rolls })).ok).toBe(true);
        const byKey = valuesByKey(await readTopic(kafka, topic));
        return done(byKey) ? byKey : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500, what },
    );

  /** SKU i's only record after compaction: its 10th update. */
  const onlyLatest = (i: number): unknown[] => [
    expect.objectContaining({ sku: skus[i], available: i * 1000 + 10, reserved: 0 }) as unknown,
  ];

  it('10 updates of 10 SKUs compact to one record per SKU (the latest), and the partition shrinks', async () => {
    for (let round = 1; round <= 10; round++) {
      const answers = await Promise.all(
        skus.map((sku, i) => request('PUT', sku, { available: i * 1000 + round })),
      );
      expect(answers.map((answer) => answer.status)).toEqual(skus.map(() => (round === 1 ? 201 : 200)));
    }
    const before = await eventually(
      async () => {
        const byKey = valuesByKey(await readTopic(kafka, topic));
        return skus.every((sku) => byKey.get(sku)?.length === 10) ? byKey : undefined;
      },
      { what: '100 stock.changed records on inventory.stock' },
    );
    const seeded = [...before.keys()].filter((key) => !skus.includes(key));
    expect(seeded).toHaveLength(DEMO_CATALOGUE.length);
    const sizeBefore = await partitionSize(topic);

    // From now on a segment rolls on the first append after 100 ms: the cleaner can get to work.
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: topic,
          configEntries: [...fastCleaning, { name: 'segment.ms', value: '100' }],
        },
      ],
    });
    const after = await afterCompaction(
      (byKey) => skus.every((sku) => byKey.get(sku)?.length === 1),
      'compaction of inventory.stock',
    );
    const sizeAfter = await partitionSize(topic);
    console.info(`inventory.stock partition size: ${sizeBefore} bytes before, ${sizeAfter} after compaction`);

    expect(skus.map((sku) => after.get(sku))).toEqual(skus.map((_, i) => onlyLatest(i)));
    // Every key once: the 10 SKUs under test, the 13 seeded ones (and the probes' own SKU).
    const kept = [...after.entries()].filter(([key]) => key !== rollSku).flatMap(([, values]) => values);
    expect(kept).toHaveLength(skus.length + seeded.length);
    expect(sizeAfter).toBeLessThan(sizeBefore / 2);
  }, 180_000);

  it('a DELETE tombstones its SKU: after another compaction 9 SKUs remain', async () => {
    expect((await request('DELETE', skus[0]!)).status).toBe(204);
    const live = (byKey: Map<string, (StockChangedPayload | null)[]>) =>
      skus.filter((sku) => (byKey.get(sku)?.at(-1) ?? null) !== null);

    // First pass: the tombstone drops the SKU's earlier value; the tombstone itself stays for
    // delete.retention.ms so that consumers can see the deletion.
    const dropped = await afterCompaction(
      (byKey) => (byKey.get(skus[0]!) ?? []).every((value) => value === null),
      'compaction after the tombstone',
    );
    expect(live(dropped)).toEqual(skus.slice(1));
    // A later pass removes the tombstone as well: reading from the beginning gives 9 test SKUs.
    const cleaned = await afterCompaction((byKey) => !byKey.has(skus[0]!), 'removal of the tombstone');
    expect(skus.filter((sku) => cleaned.has(sku))).toEqual(skus.slice(1));
    expect(skus.slice(1).map((sku) => cleaned.get(sku))).toEqual(
      skus.slice(1).map((_, i) => onlyLatest(i + 1)),
    );
  }, 240_000);
});

// Consuming does not remove anything from a log: any new consumer group can read the whole
// history from offset 0, as often as it likes, without the producer doing anything.
describe('orders is a replayable log', () => {
  let svc: OrderServiceUnderTest;
  beforeAll(async () => {
    svc = await OrderServiceUnderTest.start('e2e.log.replay');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('two new consumer groups, one after the other, each read every order.placed from the beginning', async () => {
    const customerId = uniqueName('cust');
    const orderIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const placed = await svc.request<{ orderId: string }>('POST', '/orders', {
        customerId,
        customerEmail: 'ada@example.com',
        items: [{ sku: 'SKU-APPLE', quantity: i + 1, unitPrice: '2.50' }],
      });
      expect(placed.status).toBe(202);
      orderIds.push(placed.body.orderId);
    }
    const topic = svc.prefix + Topics.orders;
    await eventually(
      async () => {
        const placed = (await readEvents(svc.kafka, topic)).filter(
          (record) => headerValue(record.headers, EventHeaders.type) === 'order.placed',
        );
        return placed.length === orderIds.length ? placed : undefined;
      },
      { what: `${orderIds.length} order.placed records` },
    );

    const first = await readAsNewGroup(svc.kafka, topic, orderIds);
    const second = await readAsNewGroup(svc.kafka, topic, orderIds);
    expect(first.keys.sort()).toEqual([...orderIds].sort());
    expect(second.keys.sort()).toEqual([...orderIds].sort());
    expect(second.positions).toEqual(first.positions);
    // The first group had committed everything it read (readAsNewGroup waits for that), and
    // still nothing left the log: the second group started at offset 0 of every partition.
    expect(second.earliest.every((offset) => offset === '0')).toBe(true);
  });
});

/** A brand-new group reads `topic` from the beginning until it has seen every key in `keys`. */
async function readAsNewGroup(kafka: Kafka, topic: string, keys: readonly string[]) {
  const groupId = uniqueName('e2e.log.group');
  const consumer = kafka.consumer({ groupId });
  const seen: { key: string; position: string }[] = [];
  const admin = kafka.admin();
  await admin.connect();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        if (headerValue(message.headers, EventHeaders.type) === 'order.placed') {
          seen.push({ key: message.key?.toString() ?? '', position: `${partition}:${message.offset}` });
        }
        return Promise.resolve();
      },
    });
    const offsets = await admin.fetchTopicOffsets(topic);
    // Partitions no order hashed to have nothing to commit (-1 = no committed offset).
    const ends = offsets.filter((o) => o.high !== '0').map((o) => `${o.partition}:${o.high}`);
    await eventually(
      async () => {
        const [mine] = await admin.fetchOffsets({ groupId, topics: [topic] });
        const done = (mine?.partitions ?? []).filter((p) => p.offset !== '-1');
        const committed = done.map((p) => `${p.partition}:${p.offset}`);
        return keys.every((key) => seen.some((s) => s.key === key)) &&
          committed.sort().join() === ends.sort().join()
          ? true
          : undefined;
      },
      { what: `group ${groupId} to read and commit ${topic}` },
    );
    return {
      // Each order once: a relay's repeated copy (at least once, same ce_id) is not a second order.
      keys: [...new Set(seen.map((s) => s.key))],
      positions: seen.map((s) => s.position).sort(),
      earliest: offsets.map((o) => o.low),
    };
  } finally {
    await consumer.disconnect();
    await admin.disconnect();
  }
}
