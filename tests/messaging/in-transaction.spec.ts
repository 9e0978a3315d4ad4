// inTransaction's connect timeout against a real pool: an exhausted pool is reported as the
// database being unavailable (503 over HTTP), and the connection that frees up later is not lost.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnavailable } from '@pipeline/messaging';
import { inTransaction } from '@pipeline/database';
import { createTestDatabase, type TestDatabase } from '../support/db';

describe('inTransaction with connectTimeoutMs', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase('in_transaction');
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('gives up with SQLSTATE 08001 when the pool has no connection in time, and loses none', async () => {
    const held = await pool.connect();
    const started = Date.now();
    const error: unknown = await inTransaction(pool, (sql) => sql.query('SELECT 1'), {
      connectTimeoutMs: 100,
    }).catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(error).toMatchObject({ code: '08001', retriable: true });
    expect(isUnavailable(error)).toBe(true);

    held.release();
    // The connection the timed-out caller was queued for went back to the pool unused.
    const rows = await inTransaction(pool, (sql) => sql.query<{ one: number }>('SELECT 1 AS one'), {
      connectTimeoutMs: 1_000,
    });
    expect(rows).toEqual([{ one: 1 }]);
    expect(pool.totalCount).toBe(1);
    expect(pool.idleCount).toBe(1);
  });
});
