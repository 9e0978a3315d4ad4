import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { createDatabasePool } from '@pipeline/service-kit';
import { deployService } from '../../scripts/db/migrate.mjs';
import { createTestDatabase, type TestDatabase } from './db';
import { PrismaClient } from './generated/prisma/client';

export type TestPrismaClient = PrismaClient;

export interface MessagingTestDatabase extends TestDatabase {
  /** A Prisma client on the database; `close()` disconnects it and drops the database. */
  readonly prisma: PrismaClient;
  close(): Promise<void>;
}

/**
 * A fresh test database with the tables every service has (`outbox`, `inbox`, the NOTIFY
 * trigger: order-service's migrations) plus the `effect` table test handlers write to.
 */
export async function createMessagingTestDatabase(label: string): Promise<MessagingTestDatabase> {
  const database = await createTestDatabase(label);
  await deployService('order', { url: database.url, log: () => undefined });
  await database.withClient(async (client) => {
    await client.query(`CREATE TABLE effect (
      id BIGSERIAL PRIMARY KEY,
      consumer TEXT NOT NULL,
      event_id UUID NOT NULL,
      key TEXT,
      seq INTEGER,
      created_at TIMESTAMPTZ(3) NOT NULL DEFAULT now()
    )`);
    await client.query('CREATE INDEX effect_consumer_event_id_idx ON effect (consumer, event_id)');
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 10 }) });
  return {
    ...database,
    prisma,
    close: async () => {
      await prisma.$disconnect();
      await database.drop();
    },
  };
}

/**
 * `count` rows inserted into the outbox and deleted, in one transaction: what a long run leaves
 * in a table that is never vacuumed nor analysed (a PostgreSQL whose autovacuum is off, as on
 * these machines, or behind). The pages stay, and a planner without statistics expects matches
 * among them.
 */
export async function leaveDeletedOutboxRows(database: TestDatabase, count: number): Promise<void> {
  await database.withClient(async (client) => {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO outbox (event_id, topic, key, type)
       SELECT gen_random_uuid(), 'elsewhere', 'other-' || n, 'test.happened' FROM generate_series(1, $1::int) AS n`,
      [count],
    );
    await client.query(`DELETE FROM outbox WHERE topic = 'elsewhere'`);
    await client.query('COMMIT');
  });
}

/**
 * A pool on the test database as a service opens it (`createDatabasePool`: its session options,
 * its timeouts, its sessions opting out of the outbox NOTIFY). The caller ends it.
 */
export function servicePool(database: TestDatabase, poolSize: number, applicationName: string): pg.Pool {
  return createDatabasePool({
    url: database.url,
    poolSize,
    applicationName,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: 30_000,
  });
}
