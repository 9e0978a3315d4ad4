import { afterEach, describe, expect, it } from 'vitest';
import { createKafka, outboxCommitted, writeToOutbox } from '@pipeline/messaging';
import pg from 'pg';
import { inTransaction, sqlOverPrisma } from '@pipeline/database';
import { OutboxRelay, type OutboxRelayOptions } from '@pipeline/outbox-relay';
import { createTestTopics, readEvents, readTopic, testKafka, uniqueName } from '../support/kafka';
import {
  createMessagingTestDatabase,
  servicePool,
  type MessagingTestDatabase,
} from '../support/messaging-database';
import { eventually } from '../support/processes';

/** Polls `check` until it holds (bounded: `eventually`). */
const until = (check: () => boolean | Promise<boolean>, options: Parameters<typeof eventually>[1] = {}) =>
  eventually(async () => ((await check()) ? true : undefined), options);

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function capturingLogger() {
  const warnings: string[] = [];
  const logger = { log: () => undefined, warn: (m: string) => void warnings.push(m), error: () => undefined };
  return { warnings, logger };
}

async function database(label: string): Promise<MessagingTestDatabase> {
  const db = await createMessagingTestDatabase(label);
  cleanups.push(() => db.close());
  return db;
}

function relayOn(db: MessagingTestDatabase, options: Partial<OutboxRelayOptions> = {}): OutboxRelay {
  const relay = new OutboxRelay({
    service: 'order',
    databaseUrl: db.url,
    kafka: testKafka(),
    logger: capturingLogger().logger,
    ...options,
  });
  cleanups.push(() => relay.stop());
  return relay;
}

/** The pool a service runs on (createDatabasePool): its sessions opt out of the outbox NOTIFY. */
function orderServicePool(db: MessagingTestDatabase): pg.Pool {
  const pool = servicePool(db, 2, 'order-service');
  cleanups.push(() => pool.end());
  return pool;
}

/** Hears every NOTIFY on the outbox channel from now on, with the backend pid of its sender. */
async function listen(db: MessagingTestDatabase, heard: (senderPid: number) => void): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  cleanups.push(() => client.end());
  client.on('notification', (message) => heard(message.processId));
  await client.query('LISTEN outbox');
}

const testEvent = (topic: string, seq: number) => ({
  topic,
  key: 'k',
  type: 'test.happened',
  payload: { key: 'k', seq },
  correlationId: 'k',
});

/** Writes `count` events for one key in one transaction, numbered from `from`. */
async function write(
  db: MessagingTestDatabase,
  topic: string,
  count: number,
  from = 1,
  key = 'k',
): Promise<void> {
  await db.prisma.$transaction(async (tx) => {
    const events = Array.from({ length: count }, (_, i) => ({
      topic,
      key,
      type: 'test.happened',
      payload: { key, seq: from + i },
      correlationId: key,
    }));
    await writeToOutbox(sqlOverPrisma(tx), events, { source: 'order-service' });
  });
}

/** The payload sequence numbers on the topic, in offset order (single partition). */
async function sequencesOn(topic: string): Promise<number[]> {
  const records = await readTopic(testKafka(), topic);
  records.sort((a, b) => Number(a.offset) - Number(b.offset));
  return records.map((record) => (JSON.parse(record.value?.toString() ?? 'null') as { seq: number }).seq);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function testTopic(label: string): { name: string; create: () => Promise<void> } {
  const name = uniqueName(label);
  return {
    name,
    create: async () => {
      const topics = await createTestTopics(testKafka(), [{ name }]);
      cleanups.push(() => topics.deleteTopics());
    },
  };
}

describe('OutboxRelay under failure', () => {
  it('keeps the rows while the broker rejects them and publishes them once it accepts', async () => {
    const db = await database('relay-missing-topic');
    const topic = testTopic('relay-missing-topic');
    await write(db, topic.name, 10);
    const { warnings, logger } = capturingLogger();
    const relay = relayOn(db, { logger });
    await relay.start();

    await until(() => relay.stats.failures >= 1, { what: 'a failed send' });
    expect(warnings.some((warning) => warning.includes('broker failure'))).toBe(true);
    expect((await relay.backlog()).rows).toBe(10);
    expect(relay.isLeader()).toBe(true);

    await topic.create();
    await until(async () => (await relay.backlog()).rows === 0, {
      timeoutMs: 30_000,
      what: 'outbox drained after the topic exists',
    });
    expect(await sequencesOn(topic.name)).toEqual(range(1, 10));
  });

  it('gives up flushing at flushTimeoutMs when the broker is unreachable, keeping the rows', async () => {
    const db = await database('relay-no-broker');
    await write(db, uniqueName('relay-no-broker'), 5);
    const { warnings, logger } = capturingLogger();
    const unreachable = createKafka(
      { brokers: ['127.0.0.1:1'], clientId: uniqueName('client') },
      { retry: { retries: 0 } },
    );
    const relay = relayOn(db, { kafka: unreachable, logger, flushTimeoutMs: 1_000 });
    await relay.start();
    await until(() => relay.stats.failures >= 1, { what: 'a failed connect' });

    const stoppingAt = performance.now();
    await relay.stop();
    expect(performance.now() - stoppingAt).toBeLessThan(8_000);
    expect(warnings.some((warning) => warning.includes('flush gave up'))).toBe(true);
    expect(relay.isLeader()).toBe(false);
    expect((await relay.backlog()).rows).toBe(5);
  });

  it('reports its backlog and flushes what was committed before stop()', async () => {
    const db = await database('relay-flush');
    const topic = testTopic('relay-flush');
    await topic.create();
    // No NOTIFY and a one-minute poll: only the start-up pass and stop()'s flush publish.
    await db.withClient((client) =>
      client.query('ALTER TABLE outbox DISABLE TRIGGER outbox_notify_after_insert'),
    );
    const relay = relayOn(db, { pollIntervalMs: 60_000 });
    expect(await relay.backlog()).toEqual({ rows: 0, oldestAgeMs: null });

    await write(db, topic.name, 3);
    const aged = await eventually(async () => {
      const backlog = await relay.backlog();
      return (backlog.oldestAgeMs ?? 0) >= 200 ? backlog : undefined;
    });
    expect(aged.rows).toBe(3);
    expect(aged.oldestAgeMs).toBeLessThan(10_000);

    await relay.start();
    await until(async () => (await relay.backlog()).rows === 0, {
      what: 'first pass',
    });
    await write(db, topic.name, 4, 4);
    expect((await relay.backlog()).rows).toBe(4);

    await Promise.all([relay.stop(), relay.stop()]);
    expect(relay.isLeader()).toBe(false);
    expect((await relay.backlog()).rows).toBe(0);
    expect(await sequencesOn(topic.name)).toEqual(range(1, 7));
  });

  it('polls when no NOTIFY arrives', async () => {
    const db = await database('relay-poll');
    const topic = testTopic('relay-poll');
    await topic.create();
    await db.withClient((client) =>
      client.query('ALTER TABLE outbox DISABLE TRIGGER outbox_notify_after_insert'),
    );
    const relay = relayOn(db, { pollIntervalMs: 200 });
    await relay.start();
    await write(db, topic.name, 5);
    await until(async () => (await relay.backlog()).rows === 0, { what: 'polled' });
    expect(await sequencesOn(topic.name)).toEqual(range(1, 5));
  });

  it('publishes at once when a writer of its process says it committed, without a NOTIFY', async () => {
    const db = await database('relay-in-process');
    const topic = testTopic('relay-in-process');
    await topic.create();
    // No NOTIFY and a one-minute poll: after its start-up pass only outboxCommitted wakes it.
    await db.withClient((client) =>
      client.query('ALTER TABLE outbox DISABLE TRIGGER outbox_notify_after_insert'),
    );
    await write(db, topic.name, 1);
    const relay = relayOn(db, { pollIntervalMs: 60_000 });
    await relay.start();
    await until(() => relay.stats.published === 1, { what: 'the start-up pass' });

    await write(db, topic.name, 4, 2);
    outboxCommitted('order-service');
    await until(() => relay.stats.published === 5, { what: 'woken in process' });
    expect(await sequencesOn(topic.name)).toEqual(range(1, 5));
  });

  it("sends no NOTIFY for a commit by the service's own pool, whose writers wake the relay in process", async () => {
    const db = await database('relay-own-notify');
    const topic = testTopic('relay-own-notify');
    const pool = orderServicePool(db);
    const senders: number[] = [];
    await listen(db, (pid) => senders.push(pid));

    // A: committed by the service's pool. B: by another session (a script, psql).
    const a = await inTransaction(pool, async (sql) => {
      await writeToOutbox(sql, [testEvent(topic.name, 1)], { source: 'order-service' });
      return (await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
    });
    await write(db, topic.name, 1, 2);
    await until(() => senders.length > 0, { what: "B's NOTIFY" });
    // NOTIFYs arrive in commit order: had A sent one, it would have come first.
    expect(senders[0]).not.toBe(a);
  });

  it('passes the commits of its process on to the leader with a NOTIFY when another relay leads', async () => {
    const db = await database('relay-follower-notify');
    const topic = testTopic('relay-follower-notify');
    await topic.create();
    const pool = orderServicePool(db);
    // Two relays of one outbox (one lock key) in one process: the order relay leads; the
    // "payment" one follows and hears payment-service's writers, as another instance would.
    const leader = relayOn(db, { pollIntervalMs: 60_000 });
    await leader.start();
    await until(() => leader.isLeader(), { what: 'the lead' });
    const follower = relayOn(db, { service: 'payment', lockKey: leader.lockKey, pollIntervalMs: 60_000 });
    await follower.start();
    expect(follower.isLeader()).toBe(false);

    // No NOTIFY from the pool, and the leader's poll is a minute away: only the follower's wakes it.
    await inTransaction(pool, (sql) =>
      writeToOutbox(sql, [testEvent(topic.name, 1)], { source: 'payment-service' }),
    );
    outboxCommitted('payment-service');
    await until(() => leader.stats.published === 1, { what: "the follower's NOTIFY" });
    expect(follower.stats.published).toBe(0);
    expect(await sequencesOn(topic.name)).toEqual([1]);
  });

  it('stops publishing when its database session dies, then takes the lock again and goes on', async () => {
    const db = await database('relay-session-lost');
    const topic = testTopic('relay-session-lost');
    await topic.create();
    const { warnings, logger } = capturingLogger();
    const relay = relayOn(db, { logger });
    await relay.start();
    await write(db, topic.name, 50);
    await until(() => relay.stats.published === 50, { what: 'first events' });

    await db.withClient((client) =>
      client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'outbox-relay:order'`,
      ),
    );
    await until(() => warnings.some((w) => w.includes('lost its database session')), { what: 'noticed' });
    await write(db, topic.name, 50, 51);
    await until(async () => (await relay.backlog()).rows === 0, {
      what: 'drained',
    });
    expect(relay.isLeader()).toBe(true);
    expect(await sequencesOn(topic.name)).toEqual(range(1, 100));
  });

  it('drains a large backlog in batches, leaving nothing behind', async () => {
    const db = await database('relay-throughput');
    const topic = testTopic('relay-throughput');
    await topic.create();
    const total = 20_000;
    await db.withClient((client) =>
      client.query(
        `INSERT INTO outbox (event_id, topic, key, type, payload, headers)
         SELECT id, $1, 'order-' || (i % 100), 'test.happened',
                jsonb_build_object('key', 'order-' || (i % 100), 'seq', i / 100 + 1, 'note', repeat('x', 200)),
                jsonb_build_object('ce_specversion', '1.0', 'ce_id', id::text, 'ce_type', 'test.happened',
                  'ce_source', 'order-service', 'ce_time', now()::text, 'content-type', 'application/json',
                  'correlation_id', 'order-' || (i % 100))
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(0, $2 - 1) AS i) AS rows`,
        [topic.name, total],
      ),
    );
    const relay = relayOn(db);
    const startedAt = performance.now();
    await relay.start();
    await until(() => relay.stats.published === total, {
      intervalMs: 20,
      what: 'backlog drained',
    });
    const perSecond = total / ((performance.now() - startedAt) / 1000);
    // The rate is reported, not asserted: timing targets belong to `npm run bench`.
    console.log(`[outbox-relay] drained ${total} rows at ${Math.round(perSecond)} events/s`);
    expect((await relay.backlog()).rows).toBe(0);
    // Full batches, not one row per send: the relay's throughput comes from batching.
    expect(relay.stats.batches).toBeLessThanOrEqual(Math.ceil(total / 100));
    // Every row once at least; a send the broker wrote after it timed out is repeated by design.
    expect(await readEvents(testKafka(), topic.name)).toHaveLength(total);
  });
});
