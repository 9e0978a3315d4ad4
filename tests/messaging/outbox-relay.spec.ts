import { afterEach, describe, expect, it } from 'vitest';
import {
  EventHeaders,
  encodeHeaders,
  headerValue,
  readHeaders,
  type OutgoingEvent,
} from '@pipeline/contracts';
import { writeToOutbox } from '@pipeline/messaging';
import { sqlOverPrisma } from '@pipeline/database';
import { OutboxRelay } from '@pipeline/outbox-relay';
import type { Kafka } from 'kafkajs';
import { createTestTopics, readTopic, testKafka, uniqueName } from '../support/kafka';
import { createMessagingTestDatabase, type TestPrismaClient } from '../support/messaging-database';
import { eventually } from '../support/processes';

const SOURCE = 'order-service';
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
/** Polls `check` until it holds (bounded: `eventually`). */
const until = (check: () => boolean | Promise<boolean>, options: Parameters<typeof eventually>[1] = {}) =>
  eventually(async () => ((await check()) ? true : undefined), options);

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly kafka: Kafka;
  readonly topic: string;
  readonly prisma: TestPrismaClient;
  readonly databaseUrl: string;
  relay(options?: { pollIntervalMs?: number }): OutboxRelay;
  backlogRows(): Promise<number>;
}

async function setup(label: string): Promise<Setup> {
  const db = await createMessagingTestDatabase(label);
  cleanups.push(() => db.close());
  const kafka = testKafka();
  const topic = uniqueName(label);
  const topics = await createTestTopics(kafka, [{ name: topic, partitions: 3 }]);
  cleanups.push(() => topics.deleteTopics());
  const relays: OutboxRelay[] = [];
  cleanups.push(async () => void (await Promise.all(relays.map((relay) => relay.stop()))));
  return {
    kafka,
    topic,
    prisma: db.prisma,
    databaseUrl: db.url,
    relay: (options = {}) => {
      const relay = new OutboxRelay({
        service: 'order',
        databaseUrl: db.url,
        kafka,
        logger: quiet,
        ...options,
      });
      relays.push(relay);
      return relay;
    },
    backlogRows: () =>
      db.withClient(async (client) => (await client.query('SELECT id FROM outbox')).rowCount ?? 0),
  };
}

const event = (topic: string, key: string, seq: number): OutgoingEvent<{ key: string; seq: number }> => ({
  topic,
  key,
  type: 'test.happened',
  payload: { key, seq },
  correlationId: key,
});

/**
 * Writes `count` events for `key` the way a service does: the transaction first locks the
 * aggregate (here an advisory transaction lock standing in for its row), then numbers and
 * writes the events, so per key the sequence follows commit order.
 */
async function writeKeyed(setup: Setup, key: string, count: number, sequences: Map<string, number>) {
  await setup.prisma.$transaction(async (tx) => {
    await tx.$queryRawUnsafe('SELECT 1 FROM pg_advisory_xact_lock(hashtext($1))', key);
    const first = (sequences.get(key) ?? 0) + 1;
    sequences.set(key, first + count - 1);
    const events = Array.from({ length: count }, (_, i) => event(setup.topic, key, first + i));
    await writeToOutbox(sqlOverPrisma(tx), events, { source: SOURCE });
  });
}

/** `perKey` events for each key in transactions of 1..5 events, shuffled across `writers`. */
async function runWriters(
  setup: Setup,
  keys: string[],
  perKey: number,
  sequences: Map<string, number>,
  writers = 10,
) {
  const tasks: { key: string; count: number }[] = [];
  for (const key of keys) {
    for (let left = perKey; left > 0;) {
      const count = Math.min(left, 1 + Math.floor(Math.random() * 5));
      tasks.push({ key, count });
      left -= count;
    }
  }
  tasks.sort(() => Math.random() - 0.5);
  const worker = async () => {
    for (let task = tasks.pop(); task; task = tasks.pop())
      await writeKeyed(setup, task.key, task.count, sequences);
  };
  await Promise.all(Array.from({ length: writers }, worker));
}

interface Received {
  readonly id: string;
  readonly key: string;
  readonly seq: number;
}

/** Every record on the topic, each partition in offset order. */
async function received(setup: Setup): Promise<Received[]> {
  const records = await readTopic(setup.kafka, setup.topic);
  records.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
  return records.map((record) => {
    const payload = JSON.parse(record.value?.toString() ?? 'null') as { key: string; seq: number };
    expect(record.key?.toString()).toBe(payload.key);
    return { id: headerValue(record.headers, EventHeaders.id) ?? '', key: payload.key, seq: payload.seq };
  });
}

/** Each key's events arrive exactly once, as 1..n in order. */
function expectExactlyOnceInOrder(records: Received[], expected: Map<string, number>): void {
  expect(new Set(records.map((record) => record.id)).size).toBe(records.length);
  for (const [key, count] of expected) {
    const sequence = records.filter((record) => record.key === key).map((record) => record.seq);
    expect(sequence, `key ${key}`).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  }
  expect(records).toHaveLength([...expected.values()].reduce((sum, count) => sum + count, 0));
}

const drained = (setup: Setup, what = 'outbox drained') =>
  until(async () => (await setup.backlogRows()) === 0, { timeoutMs: 60_000, what });

describe('OutboxRelay', () => {
  it('publishes key, JSON value and CloudEvents headers as written, and null payloads as tombstones', async () => {
    const s = await setup('relay-format');
    await s.relay().start();
    const [written, tombstone] = await s.prisma.$transaction((tx) =>
      writeToOutbox(
        sqlOverPrisma(tx),
        [event(s.topic, 'k', 1), { ...event(s.topic, 'k', 2), payload: null }],
        {
          source: SOURCE,
          trace: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        },
      ),
    );
    await drained(s);
    const records = await readTopic(s.kafka, s.topic);
    records.sort((a, b) => Number(a.offset) - Number(b.offset));
    expect(records.map((record) => record.key?.toString())).toEqual(['k', 'k']);
    expect(JSON.parse(records[0]?.value?.toString() ?? '')).toEqual({ key: 'k', seq: 1 });
    expect(records[1]?.value).toBeNull();
    expect(readHeaders(records[0]?.headers)).toEqual(encodeHeaders(written!));
    expect(readHeaders(records[1]?.headers)).toEqual(encodeHeaders(tombstone!));
  });

  it('publishes thousands of events from concurrent transactions in per-key order', async () => {
    const s = await setup('relay-order');
    const relay = s.relay();
    await relay.start();
    const keys = Array.from({ length: 20 }, (_, i) => `order-${i}`);
    const sequences = new Map<string, number>();

    const startedAt = performance.now();
    await runWriters(s, keys, 200, sequences);
    await drained(s);
    const seconds = (performance.now() - startedAt) / 1000;
    console.log(`[outbox-relay] 4000 events written by 10 writers and relayed in ${seconds.toFixed(2)} s`);

    expectExactlyOnceInOrder(await received(s), sequences);
    expect(relay.stats.published).toBe(4000);
  });

  it('does not skip a row whose transaction commits after a higher id was published', async () => {
    const s = await setup('relay-late-commit');
    await s.relay().start();
    const idOf = async (tx: Pick<TestPrismaClient, '$queryRawUnsafe'>, eventId: string) => {
      const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
        'SELECT id::text AS id FROM outbox WHERE event_id = $1::uuid',
        eventId,
      );
      return BigInt(rows[0]?.id ?? '-1');
    };
    let commitA = (): void => undefined;
    const gate = new Promise<void>((resolve) => (commitA = resolve));
    let wroteA: (id: bigint) => void = () => undefined;
    const idA = new Promise<bigint>((resolve) => (wroteA = resolve));
    const transactionA = s.prisma.$transaction(
      async (tx) => {
        const [written] = await writeToOutbox(sqlOverPrisma(tx), [event(s.topic, 'a', 1)], {
          source: SOURCE,
        });
        wroteA(await idOf(tx, written!.id));
        await gate;
      },
      { timeout: 60_000 },
    );
    const idOfA = await idA;

    const idB = await s.prisma.$transaction(async (tx) => {
      const [written] = await writeToOutbox(sqlOverPrisma(tx), [event(s.topic, 'b', 1)], { source: SOURCE });
      return idOf(tx, written!.id);
    });
    expect(idB).toBeGreaterThan(idOfA);
    const onlyB = await eventually(async () => {
      const records = await received(s);
      return records.some((record) => record.key === 'b') ? records : undefined;
    });
    expect(onlyB.map((record) => record.key)).toEqual(['b']);

    commitA();
    await transactionA;
    const both = await eventually(async () => {
      const records = await received(s);
      return records.length === 2 ? records : undefined;
    });
    expect(both.map((record) => record.key).sort()).toEqual(['a', 'b']);
    await drained(s);
  });

  it('runs one relay per service: the other takes over when the leader stops, no duplicates', async () => {
    const s = await setup('relay-two');
    const first = s.relay({ pollIntervalMs: 200 });
    const second = s.relay({ pollIntervalMs: 200 });
    await first.start();
    await second.start();
    expect([first.isLeader(), second.isLeader()].filter(Boolean)).toHaveLength(1);
    const [leader, follower] = first.isLeader() ? [first, second] : [second, first];
    const keys = Array.from({ length: 5 }, (_, i) => `order-${i}`);
    const sequences = new Map<string, number>();

    const writing = runWriters(s, keys, 200, sequences, 5);
    await until(() => leader.stats.published >= 100, {
      what: 'leader publishing',
    });
    await leader.stop();
    expect(leader.isLeader()).toBe(false);
    await until(() => follower.isLeader(), { what: 'takeover' });
    await writing;
    await runWriters(s, keys, 50, sequences, 5);
    await drained(s);

    expectExactlyOnceInOrder(await received(s), sequences);
    expect(follower.stats.published).toBeGreaterThan(0);
    expect(leader.stats.published + follower.stats.published).toBe(keys.length * 250);
  });
});
