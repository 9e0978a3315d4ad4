// The service pool (createDatabasePool, what DatabaseModule gives every service) against a
// Postgres that stops answering: a TCP proxy in front of it forwards nothing any more and closes
// nothing, as a dropped network path or a frozen host does. Every query fails within its timeout,
// as "database unavailable" (what makes the consumer wait the outage out and HTTP answer 503),
// instead of waiting forever on a socket that will never speak again.
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnavailable } from '@pipeline/messaging';
import { inTransaction } from '@pipeline/database';
import { createDatabasePool } from '@pipeline/service-kit';
import { buildUrl } from '../../scripts/db/lib.mjs';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { PrismaClient } from '../support/generated/prisma/client';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

const TIMEOUT_MS = 1_000;

describe('the service pool when Postgres stops answering', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase('pg_blackhole');
    proxy = await startTcpProxy(database.fields.host, database.fields.port);
    pool = createDatabasePool({
      url: buildUrl({ ...database.fields, host: '127.0.0.1', port: proxy.port }),
      poolSize: 4,
      applicationName: 'test-pg-blackhole',
      connectTimeoutMs: TIMEOUT_MS,
      statementTimeoutMs: TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    await proxy?.close();
    await pool?.end().catch(() => undefined);
    await database?.drop();
  });

  it('has the server cancel a statement that runs past the statement timeout', async () => {
    const error = await pool.query('SELECT pg_sleep(30)').catch((caught: unknown) => caught);
    // 57014 query_canceled: "canceling statement due to statement timeout".
    expect(error).toMatchObject({ code: '57014' });
    expect((error as Error).message).toContain('statement timeout');
  });

  it('fails queries on a silent connection, on a new one and through Prisma, as database-unavailable', async () => {
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    // One idle connection in the pool, used by pg and by Prisma alike.
    expect(await pool.query('SELECT 1 AS one')).toMatchObject({ rows: [{ one: 1 }] });
    await prisma.$queryRawUnsafe('SELECT 1');
    expect(pool.idleCount).toBe(1);
    proxy.blackhole();

    // The idle connection: the query is sent and nothing comes back (query_timeout, client side).
    const onIdle = await pool.query('SELECT 1').catch((caught: unknown) => caught);
    expect(onIdle).toMatchObject({ message: 'Query read timeout' });
    expect
      .soft(isUnavailable(onIdle, true), 'classify-error.ts must read pg\'s "Query read timeout"')
      .toBe(true);

    // A new connection: the TCP handshake succeeds, the startup message is never answered.
    const onNew = await pool.query('SELECT 1').catch((caught: unknown) => caught);
    expect(onNew).toMatchObject({ message: 'Connection terminated due to connection timeout' });
    expect(isUnavailable(onNew, true)).toBe(true);

    // The consumer's and the HTTP group commit's path, and Prisma's (the reads) on the same pool.
    const transaction = await inTransaction(pool, (sql) => sql.query('SELECT 1')).catch(
      (caught: unknown) => caught,
    );
    expect(isUnavailable(transaction, true)).toBe(true);
    const viaPrisma = await prisma.$queryRawUnsafe('SELECT 1').catch((caught: unknown) => caught);
    // Prisma 7's pg adapter rethrows pg's own Error, adding only `clientVersion`.
    expect(viaPrisma).toMatchObject({ message: 'Connection terminated due to connection timeout' });
    expect
      .soft(isUnavailable(viaPrisma), "classify-error.ts must read pg's errors rethrown by Prisma")
      .toBe(true);
    await prisma.$disconnect();
  });
});
