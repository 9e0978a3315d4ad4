// The statement that claims orders and moves their stock, against real PostgreSQL: what it claims,
// what it moves, and what it reports when another transaction claimed an order first.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOver } from '@pipeline/database';
import { createDatabases, dropDatabase } from '../../../../scripts/db/create-databases.mjs';
import { buildUrl, pgEnv } from '../../../../scripts/db/lib.mjs';
import { deployService } from '../../../../scripts/db/migrate.mjs';
import { claimAndMove, lockStock } from './reserve-stock.queries';

/** Resolves once the backend `pid` waits for a lock another session holds. */
async function waitUntilBlocked(observer: pg.Client, pid: number): Promise<void> {
  const blocked = async () =>
    (await observer.query<{ n: number }>('SELECT cardinality(pg_blocking_pids($1)) AS n', [pid])).rows[0]!.n >
    0;
  while (!(await blocked())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('claimAndMove (inventory-service)', () => {
  // A throwaway database (test_... as every test database), migrated as inventory-service's.
  const fields = { ...pgEnv(), database: `test_inventory_claims_${randomBytes(4).toString('hex')}` };
  const connect = async () => {
    const connection = new pg.Client(fields);
    await connection.connect();
    return connection;
  };
  let client: pg.Client;

  beforeAll(async () => {
    await createDatabases([fields.database]);
    await deployService('inventory', { url: buildUrl(fields), log: () => undefined });
    client = await connect();
  });

  afterAll(async () => {
    await client.end();
    await dropDatabase(fields.database);
  });

  const stockOf = async (sku: string) =>
    (
      await client.query<{ available: number; reserved: number }>(
        'SELECT available, reserved FROM stock WHERE sku = $1',
        [sku],
      )
    ).rows[0];

  it('claims the orders and moves the locked stock in one statement, returning both', async () => {
    await client.query(`INSERT INTO stock (sku, available, reserved) VALUES ('A-1', 10, 0), ('B-1', 5, 1)`);
    const [reserved, rejected] = [randomUUID(), randomUUID()];
    await client.query('BEGIN');
    const sql = sqlOver(client);
    await lockStock(sql, ['A-1', 'B-1']);
    const result = await claimAndMove(
      sql,
      [
        {
          orderId: reserved,
          lines: [
            { sku: 'A-1', quantity: 3 },
            { sku: 'B-1', quantity: 2 },
          ],
          status: 'RESERVED',
        },
        { orderId: rejected, lines: [{ sku: 'Z-9', quantity: 1 }], status: 'REJECTED' },
      ],
      [
        { sku: 'A-1', quantity: 3 },
        { sku: 'B-1', quantity: 2 },
      ],
    );
    await client.query('COMMIT');

    expect(result.inserted).toEqual(new Set([reserved, rejected]));
    expect(
      result.moved
        .map(({ sku, available, reserved }) => ({ sku, available, reserved }))
        .sort((a, b) => a.sku.localeCompare(b.sku)),
    ).toEqual([
      { sku: 'A-1', available: 7, reserved: 3 },
      { sku: 'B-1', available: 3, reserved: 3 },
    ]);
    expect(result.moved.every((row) => row.updated_at instanceof Date)).toBe(true);
    expect(await stockOf('A-1')).toEqual({ available: 7, reserved: 3 });
    const statuses = await client.query<{ order_id: string; status: string }>(
      'SELECT order_id::text AS order_id, status::text AS status FROM reservations WHERE order_id = ANY($1::uuid[])',
      [[reserved, rejected]],
    );
    expect(Object.fromEntries(statuses.rows.map((row) => [row.order_id, row.status]))).toEqual({
      [reserved]: 'RESERVED',
      [rejected]: 'REJECTED',
    });
  });

  it('with nothing to move (every order rejected) still reports the claims, and moves nothing', async () => {
    const rejected = randomUUID();
    const result = await claimAndMove(
      sqlOver(client),
      [{ orderId: rejected, lines: [], status: 'REJECTED' }],
      [],
    );
    expect(result).toEqual({ inserted: new Set([rejected]), moved: [] });
  });

  it('leaves out of `inserted` an order another transaction claimed first, so the caller can roll back', async () => {
    await client.query(`INSERT INTO stock (sku, available, reserved) VALUES ('C-1', 4, 0)`);
    const taken = randomUUID();
    const other = await connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO reservations (order_id, items, status) VALUES ($1, '[]', 'REJECTED')`, [
        taken,
      ]);
      const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
      await client.query('BEGIN');
      const pending = claimAndMove(
        sqlOver(client),
        [{ orderId: taken, lines: [{ sku: 'C-1', quantity: 1 }], status: 'RESERVED' }],
        [{ sku: 'C-1', quantity: 1 }],
      );
      // The claim waits on the other transaction's uncommitted row; once that commits, the order is
      // the other's.
      await waitUntilBlocked(other, pid);
      await other.query('COMMIT');
      const result = await pending;
      await client.query('ROLLBACK');
      expect(result.inserted).toEqual(new Set());
    } finally {
      await other.end();
    }
    expect(await stockOf('C-1')).toEqual({ available: 4, reserved: 0 });
  });
});
