// Migrations of the five service databases, against the real local Postgres.
// Each case works on a throwaway database named test_<service>_<random> (the
// helper refuses any other name) and drops it afterwards.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  SERVICES,
  ROOT,
  migrationsDirOf,
  readMigrations,
  sha256Hex,
  type ServiceName,
} from '../../scripts/db/lib.mjs';
import { deployService, deployServiceWasm, statusService } from '../../scripts/db/migrate.mjs';
import { assertTestDatabaseName, createTestDatabase, testDatabase, type TestDatabase } from '../support/db';

interface MigrationRow {
  id: string;
  checksum: string;
  migration_name: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}

const quiet = (): void => {};

async function migrationRows(client: pg.Client): Promise<MigrationRow[]> {
  const { rows } = await client.query<MigrationRow>(
    `SELECT id, checksum, migration_name, started_at, finished_at, rolled_back_at, logs, applied_steps_count
       FROM "_prisma_migrations" ORDER BY migration_name, started_at`,
  );
  return rows;
}

/** Everything Prisma-visible plus triggers/functions, to compare two databases. */
async function catalogSnapshot(client: pg.Client): Promise<unknown> {
  const columns = await client.query(
    `SELECT table_name, column_name, data_type, datetime_precision, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const indexes = await client.query(
    `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`,
  );
  const triggers = await client.query(
    `SELECT tgname, tgrelid::regclass::text AS tbl, tgtype FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`,
  );
  const functions = await client.query(
    `SELECT proname, prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY proname`,
  );
  return { columns: columns.rows, indexes: indexes.rows, triggers: triggers.rows, functions: functions.rows };
}

describe('test database guard', () => {
  it('refuses databases not named test_*', () => {
    expect(() => assertTestDatabaseName('order_service')).toThrow(/refusing/);
    expect(() => testDatabase('postgres')).toThrow(/refusing/);
    expect(assertTestDatabaseName('test_order_0a1b2c3d')).toBe('test_order_0a1b2c3d');
  });
});

describe.each(SERVICES.map((s) => [s] as [ServiceName]))('%s-service migrations', (service) => {
  let db: TestDatabase;
  let client: pg.Client;
  const folders = readMigrations(migrationsDirOf(service)).migrations;

  beforeAll(async () => {
    db = await createTestDatabase(service);
    client = await db.connect();
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('has migration folders and a postgresql migration_lock.toml', () => {
    expect(folders.length).toBeGreaterThan(0);
    const lock = readFileSync(path.join(migrationsDirOf(service), 'migration_lock.toml'), 'utf8');
    expect(lock).toMatch(/^provider = "postgresql"$/m);
  });

  it('deploy applies every migration', async () => {
    const result = await deployService(service, { url: db.url, log: quiet });
    expect(result.database).toBe(db.name);
    expect(result.applied).toEqual(folders.map((f) => f.name));
  });

  it('creates outbox and inbox with the expected columns', async () => {
    const { rows } = await client.query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name IN ('outbox', 'inbox') ORDER BY table_name, ordinal_position`,
    );
    const cols = rows.map((r) => `${r.table_name}.${r.column_name}:${r.data_type}:${r.is_nullable}`);
    expect(cols).toEqual([
      'inbox.consumer:text:NO',
      'inbox.event_id:uuid:NO',
      'inbox.topic:text:NO',
      'inbox.partition:integer:NO',
      'inbox.offset:bigint:NO',
      'inbox.processed_at:timestamp with time zone:NO',
      'outbox.id:bigint:NO',
      'outbox.event_id:uuid:NO',
      'outbox.topic:text:NO',
      'outbox.key:text:YES',
      'outbox.type:text:NO',
      'outbox.payload:jsonb:YES',
      'outbox.headers:jsonb:NO',
      'outbox.created_at:timestamp with time zone:NO',
    ]);
    const idx = await client.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('outbox', 'inbox') ORDER BY indexname`,
    );
    expect(idx.rows.map((r) => r.indexname)).toEqual([
      'inbox_pkey',
      'inbox_processed_at_idx',
      'outbox_created_at_idx',
      'outbox_event_id_key',
      'outbox_key_idx',
      'outbox_pkey',
    ]);
  });

  it('has a statement-level AFTER INSERT trigger on outbox that notifies once per statement', async () => {
    const { rows } = await client.query<{ tgname: string; tgtype: number; proname: string }>(
      `SELECT t.tgname, t.tgtype, p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE t.tgrelid = 'outbox'::regclass AND NOT t.tgisinternal`,
    );
    expect(rows).toHaveLength(1);
    const [trigger] = rows;
    expect(trigger?.tgname).toBe('outbox_notify_after_insert');
    expect(trigger?.proname).toBe('outbox_notify');
    const tgtype = trigger?.tgtype ?? 0;
    expect(tgtype & 1).toBe(0); // TRIGGER_TYPE_ROW unset: FOR EACH STATEMENT
    expect(tgtype & 2).toBe(0); // TRIGGER_TYPE_BEFORE unset: AFTER
    expect(tgtype & 4).toBe(4); // TRIGGER_TYPE_INSERT

    const listener = await db.connect();
    try {
      const seen: pg.Notification[] = [];
      listener.on('notification', (n) => seen.push(n));
      await listener.query('LISTEN outbox');
      await client.query(
        `INSERT INTO outbox (event_id, topic, key, type, payload)
         VALUES (gen_random_uuid(), 'orders', 'o-1', 'order.placed', '{"n":1}'),
                (gen_random_uuid(), 'orders', NULL, 'order.placed', NULL)`,
      );
      const deadline = Date.now() + 2000;
      while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await listener.query('SELECT 1'); // flush anything else already queued
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.map((n) => [n.channel, n.payload])).toEqual([['outbox', '']]);
      const inserted = await client.query<{ id: string; headers: unknown }>(
        'SELECT id, headers FROM outbox ORDER BY id',
      );
      expect(inserted.rows.map((r) => r.headers)).toEqual([{}, {}]); // headers default '{}'
      expect(BigInt(inserted.rows[1]?.id ?? '0')).toBeGreaterThan(BigInt(inserted.rows[0]?.id ?? '0'));
    } finally {
      await listener.end();
      await client.query('TRUNCATE outbox');
    }
  });

  it("records one finished _prisma_migrations row per folder, with Prisma's checksum", async () => {
    const rows = await migrationRows(client);
    expect(rows.map((r) => r.migration_name)).toEqual(folders.map((f) => f.name));
    for (const [i, row] of rows.entries()) {
      const folder = folders[i];
      expect(folder).toBeDefined();
      expect(row.checksum).toBe(sha256Hex(readFileSync(folder?.file ?? '')));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
      expect((row.finished_at?.getTime() ?? 0) >= row.started_at.getTime()).toBe(true);
    }
  });

  it('deploy again is a no-op', async () => {
    const before = await migrationRows(client);
    const lines: string[] = [];
    const result = await deployService(service, { url: db.url, log: (l) => lines.push(l) });
    expect(result.applied).toEqual([]);
    expect(lines.join('\n')).toMatch(/no pending migrations/);
    expect(await migrationRows(client)).toEqual(before);
  });

  it("Prisma's schema engine (wasm) sees the history as up to date", async () => {
    const status = await statusService(service, { url: db.url, log: quiet });
    expect(status.diagnostic).toEqual({
      hasMigrationsTable: true,
      history: null,
      failedMigrationNames: [],
      editedMigrationNames: [],
    });
    expect(status.upToDate).toBe(true);
  }, 30_000);
});

describe('deploy engines and concurrency', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('the wasm engine (applyMigrations) and the pg deploy produce the same database', async () => {
    const viaPg = await createTestDatabase('order_pg');
    const viaWasm = await createTestDatabase('order_wasm');
    dbs.push(viaPg, viaWasm);
    await deployService('order', { url: viaPg.url, log: quiet });
    const wasm = await deployServiceWasm('order', { url: viaWasm.url, log: quiet });
    expect(wasm.applied).toEqual(readMigrations(migrationsDirOf('order')).migrations.map((m) => m.name));
    const [a, b] = await Promise.all([
      viaPg.withClient(catalogSnapshot),
      viaWasm.withClient(catalogSnapshot),
    ]);
    expect(a).toEqual(b);
    const [rowsPg, rowsWasm] = await Promise.all([
      viaPg.withClient(migrationRows),
      viaWasm.withClient(migrationRows),
    ]);
    const comparable = (rows: MigrationRow[]): unknown =>
      rows.map((r) => [
        r.migration_name,
        r.checksum,
        r.applied_steps_count,
        r.finished_at !== null,
        r.rolled_back_at,
      ]);
    expect(comparable(rowsPg)).toEqual(comparable(rowsWasm));
    // and each accepts the other's history: a pg deploy on the wasm-migrated db has nothing to do
    expect((await deployService('order', { url: viaWasm.url, log: quiet })).applied).toEqual([]);
    expect((await deployServiceWasm('order', { url: viaPg.url, log: quiet })).applied).toEqual([]);
  }, 30_000);

  it('concurrent deploys serialise on the advisory lock: each migration is applied once', async () => {
    const db = await createTestDatabase('payment_conc');
    dbs.push(db);
    const results = await Promise.all([
      deployService('payment', { url: db.url, log: quiet }),
      deployService('payment', { url: db.url, log: quiet }),
      deployService('payment', { url: db.url, log: quiet }),
    ]);
    const folders = readMigrations(migrationsDirOf('payment')).migrations.map((m) => m.name);
    expect(results.flatMap((r) => r.applied).sort()).toEqual(folders);
    expect((await db.withClient(migrationRows)).map((r) => r.migration_name)).toEqual(folders);
  }, 30_000);
});

describe('schema.prisma is the source of truth', () => {
  it('`migrate.mjs check` finds every schema in sync with its migrations', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/db/migrate.mjs'), 'check'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    for (const s of SERVICES) expect(run.stdout).toMatch(new RegExp(`^check ${s}: .*in sync`, 'm'));
  }, 60_000);
});
