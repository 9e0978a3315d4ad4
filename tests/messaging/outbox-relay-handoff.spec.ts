import { afterEach, describe, expect, it, vi } from 'vitest';
import { draftOutboxRows, insertOutboxRows, outboxHandoff, writeToOutbox } from '@pipeline/messaging';
import pg from 'pg';
import { inTransaction, sqlOverPrisma, type Sql } from '@pipeline/database';
import { createDatabasePool } from '@pipeline/service-kit';
import { OutboxRelay, type OutboxRelayOptions } from '@pipeline/outbox-relay';
import { createTestTopics, readTopic, testKafka, uniqueName } from '../support/kafka';
import {
  createMessagingTestDatabase,
  leaveDeletedOutboxRows,
  type MessagingTestDatabase,
} from '../support/messaging-database';
import { planNodes, scansOf } from '../support/db';
import { eventually } from '../support/processes';

// A writer of the relay's own process hands its committed rows over (insertOutboxRows with a
// source), and the relay sends them without reading the outbox, as long as the writer's INSERT
// proved the two things a read would: the lock is held, and no row of the same key waits that
// the relay does not have in hand.

const until = (check: () => boolean | Promise<boolean>, what: string) =>
  eventually(async () => ((await check()) ? true : undefined), { timeoutMs: 30_000, what });

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
const SOURCE = 'order-service';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Bed {
  readonly db: MessagingTestDatabase;
  readonly topic: string;
  /** The service's own pool: its sessions send no NOTIFY. */
  readonly pool: pg.Pool;
  relay(options?: Partial<OutboxRelayOptions>): OutboxRelay;
  /** Writes one event of key `k` as the service's writers do, and after COMMIT hands it over. */
  handOver(seq: number): Promise<void>;
  /** The payload sequence numbers of `key` (default `k`) on the topic, in offset order. */
  sequences(key?: string): Promise<number[]>;
}

async function bed(label: string): Promise<Bed> {
  const db = await createMessagingTestDatabase(label);
  cleanups.push(() => db.close());
  const topic = uniqueName(label);
  const topics = await createTestTopics(testKafka(), [{ name: topic, partitions: 3 }]);
  cleanups.push(() => topics.deleteTopics());
  const pool = createDatabasePool({
    url: db.url,
    poolSize: 2,
    applicationName: SOURCE,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: 30_000,
  });
  cleanups.push(() => pool.end());
  return {
    db,
    topic,
    pool,
    relay: (options = {}) => {
      const relay = new OutboxRelay({
        service: 'order',
        databaseUrl: db.url,
        kafka: testKafka(),
        logger: quiet,
        pollIntervalMs: 60_000,
        ...options,
      });
      cleanups.push(() => relay.stop());
      return relay;
    },
    handOver: async (seq) => {
      const relayOutbox = await inTransaction(pool, (sql) =>
        insertOutboxRows(sql, draftOutboxRows([event(topic, seq)], { source: SOURCE }), SOURCE),
      );
      relayOutbox();
    },
    sequences: async (key = 'k') => {
      const records = await readTopic(testKafka(), topic);
      records.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
      return records
        .filter((record) => record.key?.toString() === key)
        .map((record) => (JSON.parse(record.value?.toString() ?? 'null') as { seq: number }).seq);
    },
  };
}

const event = (topic: string, seq: number) => ({
  topic,
  key: 'k',
  type: 'test.happened',
  payload: { key: 'k', seq },
  correlationId: 'k',
});

/**
 * Waits until the relay has finished its `n`-th read and offers a hand-off again. A read is
 * counted when it is sent: a writer that commits while it runs is not offered the hand-off (the
 * relay has not read yet) and wakes the relay, which reads once more.
 */
const readDone = (reads: () => number, n: number) =>
  until(() => reads() === n && outboxHandoff(SOURCE) !== undefined, `read ${n} done, a hand-off offered`);

/** Counts the relay's reads of the outbox (its one statement per read), from now on. */
function countReads(): () => number {
  const query = vi.spyOn(pg.Client.prototype, 'query');
  return () =>
    query.mock.calls.filter(([statement]) => {
      // pg takes a statement as its text or, prepared, as a config that carries it.
      const text =
        typeof statement === 'string' ? statement : (statement as pg.QueryConfig | undefined)?.text;
      return text?.startsWith('WITH lock AS') === true;
    }).length;
}

/**
 * `perKey` events for each of `keys`, in transactions of 1..5 events on 10 concurrent writers,
 * each transaction at random one of the service's (its rows handed over) or one of another
 * session (a script: its trigger NOTIFYs). Each first locks its key, as a service locks the
 * aggregate's row, then numbers its events: per key, the numbers follow commit order.
 */
async function writeMixed(b: Bed, keys: readonly string[], perKey: number): Promise<Map<string, number>> {
  const sequences = new Map<string, number>();
  const tasks: { key: string; count: number; handOver: boolean }[] = [];
  for (const key of keys)
    for (let left = perKey; left > 0;) {
      const count = Math.min(left, 1 + Math.floor(Math.random() * 5));
      tasks.push({ key, count, handOver: Math.random() < 0.5 });
      left -= count;
    }
  tasks.sort(() => Math.random() - 0.5);
  const write = async (sql: Sql, key: string, count: number, source?: string) => {
    await sql.query('SELECT 1 FROM pg_advisory_xact_lock(hashtext($1))', [key]);
    const first = (sequences.get(key) ?? 0) + 1;
    sequences.set(key, first + count - 1);
    const events = Array.from({ length: count }, (_, i) => ({
      ...event(b.topic, first + i),
      key,
      payload: { key, seq: first + i },
    }));
    return insertOutboxRows(sql, draftOutboxRows(events, { source: SOURCE }), source);
  };
  const worker = async () => {
    for (let task = tasks.pop(); task; task = tasks.pop()) {
      const { key, count } = task;
      if (task.handOver) (await inTransaction(b.pool, (sql) => write(sql, key, count, SOURCE)))();
      else await b.db.prisma.$transaction((tx) => write(sqlOverPrisma(tx), key, count));
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return sequences;
}

describe('OutboxRelay hand-off from the writers of its process', () => {
  it('sends the rows a writer hands over after COMMIT without reading the outbox', async () => {
    const b = await bed('relay-handoff');
    const reads = countReads();
    const relay = b.relay();
    await relay.start();
    await readDone(reads, 1);

    await b.handOver(1);
    await until(() => relay.stats.published === 1, 'the first row handed over');
    // The next one comes while the first is still in the outbox (its DELETE waits for a read).
    await b.handOver(2);
    await until(() => relay.stats.published === 2, 'the second row handed over');
    // A failed attempt (it reads again, by design) would explain a second read: say so if one did.
    expect(reads(), `reads, with ${relay.stats.failures} failed attempts`).toBe(1);
    expect(await b.sequences()).toEqual([1, 2]);
    expect((await relay.backlog()).rows).toBe(0);
  });

  it('reads the outbox instead when a row of the same key waits that the relay does not have', async () => {
    const b = await bed('relay-handoff-behind');
    const reads = countReads();
    const relay = b.relay();
    await relay.start();
    await readDone(reads, 1);

    // Committed by the service's pool without a word to the relay: no NOTIFY, no wake-up.
    await inTransaction(b.pool, (sql) => writeToOutbox(sql, [event(b.topic, 1)], { source: SOURCE }));
    await b.handOver(2);
    await until(() => relay.stats.published >= 1, 'a send');
    // Sent from memory, seq 2 would come first and seq 1 only with the poll, a minute later.
    expect(await b.sequences()).toEqual([1, 2]);
    expect(reads()).toBe(2);
  });

  it("proves no row of the same key waits through the outbox's key index, however large and unanalysed the table", async () => {
    const b = await bed('relay-handoff-plan');
    const reads = countReads();
    const relay = b.relay();
    await relay.start();
    await readDone(reads, 1);
    await leaveDeletedOutboxRows(b.db, 50_000);
    // The NOTIFY asks for a second read.
    await readDone(reads, 2);
    const statements: { text: string; values: readonly unknown[] }[] = [];
    const relayOutbox = await inTransaction(b.pool, (sql) => {
      const recording: Sql = {
        query: <Row>(text: string, values: readonly unknown[] = []) => {
          statements.push({ text, values });
          return sql.query<Row>(text, values);
        },
        execute: (text, values = []) => {
          statements.push({ text, values });
          return sql.execute(text, values);
        },
      };
      // Thirty keys in one transaction, as a consumer's batch writes them.
      const events = Array.from({ length: 30 }, (_, i) => ({ ...event(b.topic, 1), key: `key-${i}` }));
      return insertOutboxRows(recording, draftOutboxRows(events, { source: SOURCE }), SOURCE);
    });
    relayOutbox();
    await until(() => relay.stats.published === 30, 'the rows handed over and sent');
    expect(reads()).toBe(2);

    const [insert] = statements;
    expect(insert?.text).toContain('AS handed');
    const plan = await b.db.withClient((c) => planNodes(c, insert!.text, insert!.values));
    expect(scansOf(plan, 'outbox').map((scan) => scan['Node Type'])).not.toContain('Seq Scan');
    expect(
      plan.some(
        (node) => node['Index Name'] === 'outbox_key_idx' && /\bkey\b/.test(node['Index Cond'] ?? ''),
      ),
    ).toBe(true);
  });

  it('is not handed rows once its session lost the lock, though it believes it leads', async () => {
    const b = await bed('relay-handoff-fenced');
    let lockDropped = false;
    // A publishes seq 1, then its session loses the lock and lives on (a pooler that swapped its
    // backend, a hook that ran pg_advisory_unlock_all): A still believes it leads.
    const relayA = b.relay({
      onPublishedIntervalMs: 0,
      onPublished: async (_batch, sql) => {
        if (lockDropped) return;
        await sql.query('SELECT pg_advisory_unlock_all()');
        lockDropped = true;
      },
    });
    await relayA.start();
    await b.handOver(1);
    await until(() => lockDropped, 'A lost its lock');
    expect(relayA.isLeader()).toBe(true);
    const relayB = b.relay();
    await relayB.start();
    // B's start-up read sends seq 1 again: A's DELETE of it would have ridden with A's next read.
    await until(() => relayB.isLeader() && relayB.stats.published === 1, 'B took the free lock');

    // A offers the hand-off first (it listened first); the INSERT's proof refuses it, so the
    // writer wakes both relays: B reads and sends, A's read finds its lock gone.
    await b.handOver(2);
    await until(() => relayB.stats.published === 2, 'B sent seq 2');
    await until(() => relayA.stats.failures >= 1, 'A failed its fence');
    expect(relayA.stats.published).toBe(1);
    expect(await b.sequences()).toEqual([1, 1, 2]);
  });

  it('asks for its lock again before sending rows handed over before its session ran a statement', async () => {
    const b = await bed('relay-handoff-stale-proof');
    let lockDropped = false;
    // Inside A's report (its onPublished hook, on its session): a writer hands seq 2 over, its
    // INSERT proving A's lock, and then the hook drops the lock; A still believes it leads.
    const relayA = b.relay({
      onPublishedIntervalMs: 0,
      onPublished: async (_batch, sql) => {
        if (lockDropped) return;
        await b.handOver(2);
        await sql.query('SELECT pg_advisory_unlock_all()');
        lockDropped = true;
      },
    });
    await relayA.start();
    await b.handOver(1);
    await until(() => relayA.stats.failures >= 1, 'A refused to send seq 2 without its lock');
    expect(lockDropped).toBe(true);
    // A takes the free lock again and reads seq 2 from the outbox: sent once, after seq 1. (Without
    // the second proof A sends it at once, with no lock, and fails nothing until its poll.)
    await until(async () => (await relayA.backlog()).rows === 0, 'seq 2 read and sent');
    expect(await b.sequences()).toEqual([1, 2]);
  });

  it("keeps each key in commit order when handed rows and other sessions' rows interleave", async () => {
    const b = await bed('relay-handoff-mixed');
    const reads = countReads();
    const relay = b.relay({ pollIntervalMs: 1_000 });
    await relay.start();
    const keys = Array.from({ length: 20 }, (_, i) => `order-${i}`);
    const sequences = await writeMixed(b, keys, 100);
    // At least 2,000: a copy sent twice fails the sequences below, by key. Until then, what the
    // relay has done so far goes into the timeout's message (one such run hung for 30 s in CI).
    await eventually(
      async () => {
        const { published, failures } = relay.stats;
        if (published >= 2000) return true;
        const { rows } = await relay.backlog();
        throw new Error(`${published} published, ${failures} failed attempts, ${rows} rows in the outbox`);
      },
      { timeoutMs: 30_000, what: 'all 2,000 events published' },
    );
    for (const key of keys)
      expect(await b.sequences(key), key).toEqual(
        Array.from({ length: sequences.get(key)! }, (_, i) => i + 1),
      );
    // Both ways were taken: some rows went out without a read, some with one.
    expect(reads()).toBeGreaterThan(1);
    expect(reads()).toBeLessThan(1000);
  });
});
