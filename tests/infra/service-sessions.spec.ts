// A service's database sessions (its pool, its outbox relay's session) never JIT-compile a
// statement: their statements are short, and a server without statistics prices some of them
// past jit_above_cost once their tables have grown (BENCHMARKS.md: 2 ms became 15). And they
// prepare each statement with parameters once, rather than parse and plan it at every call.
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction, type Sql } from '@pipeline/database';
import { OutboxRelay } from '@pipeline/outbox-relay';
import { createTestTopics, testKafka, uniqueName } from '../support/kafka';
import {
  createMessagingTestDatabase,
  servicePool,
  type MessagingTestDatabase,
} from '../support/messaging-database';
import { eventually } from '../support/processes';

// Priced at 250,000 (jit_above_cost is 100,000 by default); EXPLAIN shows "JIT" when it would compile.
const PRICED_PAST_JIT = 'EXPLAIN (FORMAT JSON) SELECT count(*) FROM generate_series(1, 20000000) AS n';
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

const compiles = (rows: readonly Record<string, unknown>[]): boolean => {
  const [plan] = rows[0]!['QUERY PLAN'] as { JIT?: unknown }[];
  return plan!.JIT !== undefined;
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<MessagingTestDatabase> {
  const db = await createMessagingTestDatabase('service_sessions');
  cleanups.push(() => db.close());
  return db;
}

/** A pool as a service opens it, of one connection. */
function servicePoolOfOne(db: MessagingTestDatabase): pg.Pool {
  const pool = servicePool(db, 1, 'test-service-sessions');
  cleanups.push(() => pool.end());
  return pool;
}

describe("a service's database sessions", () => {
  it('would be JIT-compiled on a plain session of this server (what the other tests rule out)', async () => {
    const db = await database();
    expect(await db.withClient(async (client) => compiles((await client.query(PRICED_PAST_JIT)).rows))).toBe(
      true,
    );
  });

  it("plan without JIT on the service's pool", async () => {
    const db = await database();
    const pool = servicePoolOfOne(db);
    expect(compiles((await pool.query(PRICED_PAST_JIT)).rows)).toBe(false);
  });

  it("prepare each statement with parameters once per connection of the service's pool", async () => {
    const db = await database();
    const pool = servicePoolOfOne(db);
    const count = 'SELECT count(*)::int AS n FROM outbox WHERE key = $1';
    for (const key of ['a', 'b', 'c']) {
      const [row] = await inTransaction(pool, (sql) => sql.query<{ n: number }>(count, [key]));
      expect(row!.n).toBe(0);
    }
    // Without parameters (as here, and BEGIN and COMMIT) a statement is not prepared.
    const prepared = (await pool.query('SELECT name, statement FROM pg_prepared_statements')).rows;
    expect(prepared).toEqual([
      { name: expect.stringMatching(/^select_outbox_\d+$/) as string, statement: count },
    ]);
  });

  it("plan without JIT on the outbox relay's session, and prepare its statements", async () => {
    const db = await database();
    const topic = uniqueName('service-sessions');
    const topics = await createTestTopics(testKafka(), [{ name: topic, partitions: 1 }]);
    cleanups.push(() => topics.deleteTopics());
    let compiled: boolean | undefined;
    let prepared: string[] = [];
    const relay = new OutboxRelay({
      service: 'order',
      databaseUrl: db.url,
      kafka: testKafka(),
      logger: quiet,
      onPublishedIntervalMs: 0,
      // The hook runs on the relay's own session, as order-service's timeline positions do.
      onPublished: async (_batch, sql: Sql) => {
        compiled = compiles(await sql.query(PRICED_PAST_JIT));
        prepared = (await sql.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).map(
          (r) => r.name,
        );
      },
    });
    cleanups.push(() => relay.stop());
    await relay.start();
    // Written by another session: its NOTIFY wakes the relay.
    await db.withClient((client) =>
      client.query(
        `INSERT INTO outbox (event_id, topic, key, type) VALUES (gen_random_uuid(), $1, 'k', 'test.happened')`,
        [topic],
      ),
    );
    await eventually(() => Promise.resolve(compiled), {
      timeoutMs: 30_000,
      what: 'the onPublished hook ran',
    });
    expect(compiled).toBe(false);
    // The statement that read the batch from the outbox, at least.
    expect(prepared).toContainEqual(expect.stringMatching(/_outbox_\d+$/));
  });
});
