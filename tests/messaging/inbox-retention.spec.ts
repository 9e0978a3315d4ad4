import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sqlOver } from '@pipeline/database';
import { DEFAULT_INBOX_RETENTION_MS, InboxPruner } from '@pipeline/service-kit';
import { PipelineMetrics } from '@pipeline/observability';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMessagingTestDatabase, type MessagingTestDatabase } from '../support/messaging-database';
import { eventually, REPO_ROOT, startNode } from '../support/processes';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The default: as long as the consumed topics can hold a record (retention + segment + check). */
const RETENTION_MS = DEFAULT_INBOX_RETENTION_MS;
const PRUNER_MAIN = join(REPO_ROOT, 'dist/tests/messaging/fixtures/inbox-pruner-main.js');

describe('InboxPruner', () => {
  let db: MessagingTestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createMessagingTestDatabase('inbox_retention');
    // allowExitOnIdle: idle connections' timers are unref'd, so they never count as open handles.
    pool = new pg.Pool({ ...db.fields, max: 4, allowExitOnIdle: true });
  });

  afterAll(async () => {
    await pool?.end();
    await db?.close();
  });

  beforeEach(async () => {
    await pool.query('TRUNCATE inbox');
  });

  /** Inserts one inbox row per age (ms before the database's now()); returns their event ids. */
  async function insertRows(consumer: string, agesMs: readonly number[]): Promise<string[]> {
    const ids = agesMs.map(() => randomUUID());
    await pool.query(
      `INSERT INTO inbox (consumer, event_id, topic, partition, "offset", processed_at)
       SELECT $1, id, 'orders', 0, n, now() - age * interval '1 millisecond'
         FROM unnest($2::uuid[], $3::bigint[]) WITH ORDINALITY AS t(id, age, n)`,
      [consumer, ids, agesMs],
    );
    return ids;
  }

  const remainingIds = async (): Promise<string[]> =>
    (await pool.query<{ id: string }>('SELECT event_id::text AS id FROM inbox ORDER BY 1')).rows.map(
      (row) => row.id,
    );

  const prunedTotal = async (): Promise<number> =>
    (await PipelineMetrics.inboxPruned.get()).values[0]?.value ?? 0;

  it('deletes exactly the rows older than the retention, in batches of batchSize', async () => {
    const oldAges = Array.from({ length: 10 }, (_, i) => RETENTION_MS + (i + 1) * 60_000);
    await insertRows('payment-service', oldAges.slice(0, 6));
    await insertRows('analytics-service', oldAges.slice(6));
    // Just inside the retention, a day old, and new.
    const kept = [
      ...(await insertRows('payment-service', [RETENTION_MS - 60_000, DAY_MS])),
      ...(await insertRows('analytics-service', [0])),
    ];
    const batches: number[] = [];
    const pruner = new InboxPruner({
      sql: sqlOver(pool),
      retentionMs: RETENTION_MS,
      batchSize: 4,
      onBatchPruned: (rows) => batches.push(rows),
    });
    const before = await prunedTotal();

    expect(await pruner.pruneOnce()).toBe(10);
    expect(batches).toEqual([4, 4, 2]);
    expect(await remainingIds()).toEqual([...kept].sort());
    expect((await prunedTotal()) - before).toBe(10);

    batches.length = 0;
    expect(await pruner.pruneOnce()).toBe(0);
    expect(batches).toEqual([0]);
  });

  it('ends a pass on a full last batch with one more, empty, DELETE', async () => {
    await insertRows(
      'order-service',
      Array.from({ length: 6 }, () => RETENTION_MS + DAY_MS),
    );
    const batches: number[] = [];
    const pruner = new InboxPruner({
      sql: sqlOver(pool),
      retentionMs: RETENTION_MS,
      batchSize: 3,
      onBatchPruned: (rows) => batches.push(rows),
    });
    expect(await pruner.pruneOnce()).toBe(6);
    expect(batches).toEqual([3, 3, 0]);
  });

  it('is harmless when pruners of several instances run at once', async () => {
    await insertRows(
      'inventory-service',
      Array.from({ length: 200 }, (_, i) => RETENTION_MS + i * 1_000),
    );
    const kept = await insertRows('inventory-service', [0, DAY_MS]);
    const pruners = [1, 2, 3].map(
      () =>
        new InboxPruner({
          sql: sqlOver(pool),
          retentionMs: RETENTION_MS,
          batchSize: 7,
          pauseBetweenBatchesMs: 0,
        }),
    );
    const counts = await Promise.all(pruners.map((pruner) => pruner.pruneOnce()));
    // Each row was deleted by exactly one of them.
    expect(counts.reduce((a, b) => a + b, 0)).toBe(200);
    expect(await remainingIds()).toEqual([...kept].sort());
  });

  it('prunes at start and again on every interval until stop()', async () => {
    const kept = await insertRows('email-service', [0]);
    await insertRows('email-service', [RETENTION_MS + 1_000, RETENTION_MS + 2_000]);
    const pruner = new InboxPruner({ sql: sqlOver(pool), retentionMs: RETENTION_MS, intervalMs: 100 });
    const onlyKeptLeft = async () => ((await remainingIds()).length === 1 ? true : undefined);
    try {
      pruner.start();
      await eventually(onlyKeptLeft, { what: 'the first pass', intervalMs: 20 });
      // A row that aged past the retention after the first pass goes on a later one.
      await insertRows('email-service', [RETENTION_MS + 3_000]);
      await eventually(onlyKeptLeft, { what: 'a later pass', intervalMs: 20 });
      expect(await remainingIds()).toEqual(kept);
    } finally {
      await pruner.stop();
    }
  });

  it('leaves no open handle after stop(): its process exits by itself', async () => {
    await insertRows('order-service', [RETENTION_MS + 1_000, RETENTION_MS + 2_000, RETENTION_MS + 3_000]);
    const kept = await insertRows('order-service', [0]);
    const running = startNode(PRUNER_MAIN, { DATABASE_URL: db.url });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'still running'>((resolve) => {
      timer = setTimeout(() => resolve('still running'), 15_000);
    });
    try {
      expect(await Promise.race([running.exited, deadline])).toBe(0);
    } finally {
      clearTimeout(timer);
      running.child.kill('SIGKILL');
    }
    expect(running.output()).toContain('PRUNED 3');
    expect(await remainingIds()).toEqual(kept);
  });
});
