// Two chunk transactions that share record keys (one order's events on `payments` and
// `inventory`, consumed by concurrent partitions) and touch the keys' rows in opposite orders:
// without the key locks Postgres aborts one of them with a deadlock; with them they take turns.
import { lockKeys } from '@pipeline/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestPrismaClient } from '../support/messaging-database';
import { createMessagingTestDatabase, type MessagingTestDatabase } from '../support/messaging-database';
import { eventually } from '../support/processes';

let db: MessagingTestDatabase;

beforeAll(async () => {
  db = await createMessagingTestDatabase('key_locks');
  await db.prisma.$executeRawUnsafe(`CREATE TABLE aggregate (key text PRIMARY KEY, version int NOT NULL)`);
});
afterAll(async () => db?.close());

type Tx = Parameters<Parameters<TestPrismaClient['$transaction']>[0]>[0];

const touch = (tx: Tx, key: string) =>
  tx.$executeRawUnsafe(`UPDATE aggregate SET version = version + 1 WHERE key = $1`, key);

/** Whether the session `pid` waits for a lock (a row, a transaction or an advisory lock). */
async function blocked(pid: number): Promise<boolean> {
  const [row] = await db.prisma.$queryRawUnsafe<{ wait: string | null }[]>(
    `SELECT wait_event_type AS wait FROM pg_stat_activity WHERE pid = $1`,
    pid,
  );
  return row?.wait === 'Lock';
}

/**
 * A touches a then b; B touches b then a. B starts once A holds a; A touches b once B is
 * blocked (on the key lock with `locked`, on the row otherwise): the classic deadlock schedule.
 */
async function opposingChunks(locked: boolean): Promise<PromiseSettledResult<void>[]> {
  const [a, b] = [`a-${locked}`, `b-${locked}`];
  await db.prisma.$executeRawUnsafe(`INSERT INTO aggregate VALUES ($1, 0), ($2, 0)`, a, b);
  let aHoldsFirst!: () => void;
  const holding = new Promise<void>((resolve) => (aHoldsFirst = resolve));
  let secondPid!: (pid: number) => void;
  const secondStarted = new Promise<number>((resolve) => (secondPid = resolve));
  const first = db.prisma.$transaction(
    async (tx) => {
      if (locked) await lockKeys(tx, [a, b]);
      await touch(tx, a);
      aHoldsFirst();
      const pid = await secondStarted;
      await eventually(async () => ((await blocked(pid)) ? true : undefined), {
        what: 'the other chunk blocked',
      });
      await touch(tx, b);
    },
    { timeout: 20_000 },
  );
  const second = holding.then(() =>
    db.prisma.$transaction(
      async (tx) => {
        const [{ pid }] = await tx.$queryRawUnsafe<[{ pid: number }]>(`SELECT pg_backend_pid() AS pid`);
        secondPid(pid);
        if (locked) await lockKeys(tx, [b, a]);
        await touch(tx, b);
        await touch(tx, a);
      },
      { timeout: 20_000 },
    ),
  );
  return Promise.allSettled([first, second]);
}

describe('lockKeys', () => {
  it('shows the deadlock it prevents: without key locks one transaction is aborted', async () => {
    const outcomes = await opposingChunks(false);
    const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(failures).toHaveLength(1);
    expect(String((failures[0] as PromiseRejectedResult).reason)).toMatch(/deadlock/i);
  });

  it('makes chunks sharing keys take turns: both commit, every update applied', async () => {
    const outcomes = await opposingChunks(true);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
    const rows = await db.prisma.$queryRawUnsafe<{ version: number }[]>(
      `SELECT version FROM aggregate WHERE key IN ('a-true', 'b-true')`,
    );
    expect(rows.map((row) => row.version)).toEqual([2, 2]);
  });
});
