// Prisma's schema engine, run as WebAssembly, for machines where the Prisma CLI
// cannot download its native engine. Used by scripts/db/migrate.mjs for
// `create` (createMigration), `check` (diff migrations -> schema), `status`
// (diagnoseMigrationHistory) and `deploy --engine wasm` (applyMigrations).
//
// The .wasm is the one shipped inside the `prisma` CLI package, so it is the
// exact engine build `prisma migrate` uses; the JS glue comes from
// @prisma/schema-engine-wasm (same imports/exports). The engine talks to
// Postgres through @prisma/adapter-pg, with four fixes that apply to this tool
// only (never to the services):
//   1. the engine's introspection reads Postgres's internal "char" type (OID 18),
//      which the adapter cannot map: we report those columns as text;
//   2. the adapter's executeScript splits scripts on ';', which breaks $$ function
//      bodies: we send the whole script as one (simple-protocol) query;
//   3. the adapter's connectToShadowDb, given a URL, connects back to the main
//      database: we create/drop the shadow database ourselves and connect to it
//      with separate connection fields;
//   4. engine.free() leaves pools (and their idle timers) alive: close() ends
//      every pool this module opened.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';

import { ident, readMigrations } from './lib.mjs';

const require = createRequire(import.meta.url);

function wasmPath() {
  const candidates = [
    path.join(path.dirname(require.resolve('prisma/config')), 'build', 'schema_engine_bg.wasm'),
    path.join(
      path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
      'schema_engine_bg.wasm',
    ),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`schema engine wasm not found (looked at ${candidates.join(', ')})`);
  return found;
}

let wasmReady;
/** Instantiate the wasm once per process (the glue module holds a single instance). */
export function initWasm() {
  wasmReady ??= (async () => {
    const module = await WebAssembly.compile(readFileSync(wasmPath()));
    const instance = await WebAssembly.instantiate(module, { './schema_engine_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
  })();
  return wasmReady;
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/** Fixes (1) and (2) on one adapter / transaction object of @prisma/adapter-pg. */
function patchQueryable(q) {
  const performIO = q.performIO;
  q.performIO = async function patchedPerformIO(query) {
    const result = await performIO.call(this, query);
    for (const field of result?.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
    return result;
  };
  if (typeof q.executeScript === 'function') {
    q.executeScript = async function wholeScript(script) {
      try {
        await this.client.query(script);
      } catch (error) {
        this.onError(error);
      }
    };
  }
  if (typeof q.startTransaction === 'function') {
    const startTransaction = q.startTransaction;
    q.startTransaction = async function patchedStartTransaction(...args) {
      const tx = await startTransaction.apply(this, args);
      patchQueryable(tx);
      return tx;
    };
  }
  return q;
}

/**
 * A migration-aware adapter factory over @prisma/adapter-pg, with fix (3) and
 * bookkeeping for fix (4).
 * `fields`: { host, port, user, password, database } (no connectionString).
 */
class MigrationAdapterFactory {
  provider = 'postgres';
  adapterName = '@prisma/adapter-pg';

  constructor(fields, { maintenanceDb = 'postgres' } = {}) {
    this.fields = fields;
    this.maintenanceDb = maintenanceDb;
    this.open = new Set();
    this.shadowDbs = new Set();
  }

  async connect() {
    return this.#adapter({ ...this.fields });
  }

  async connectToShadowDb() {
    const database = `prisma_migrate_shadow_db_${randomUUID()}`;
    await this.#admin(`CREATE DATABASE ${ident(database)}`);
    this.shadowDbs.add(database);
    return this.#adapter({ ...this.fields, database }, async () => {
      await this.#dropShadow(database);
    });
  }

  async #adapter(fields, afterDispose) {
    const adapter = patchQueryable(await new PrismaPg({ ...fields, max: 4 }).connect());
    const dispose = adapter.dispose.bind(adapter);
    let disposed = false;
    adapter.dispose = async () => {
      if (disposed) return;
      disposed = true;
      this.open.delete(adapter);
      await dispose(); // ends the pool
      await afterDispose?.();
    };
    this.open.add(adapter);
    return adapter;
  }

  async #admin(sql) {
    const client = new pg.Client({ ...this.fields, database: this.maintenanceDb });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  async #dropShadow(database) {
    if (!this.shadowDbs.delete(database)) return;
    await this.#admin(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
  }

  /** End every pool still open and drop any shadow database left behind. */
  async close() {
    for (const adapter of [...this.open]) await adapter.dispose().catch(() => {});
    for (const db of [...this.shadowDbs]) await this.#dropShadow(db).catch(() => {});
  }
}

/** MigrationList as the engine wants it, from a Prisma Migrate folder. */
export function migrationsList(dir) {
  const { migrations, lockfile } = readMigrations(dir);
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: lockfile },
    shadowDbInitScript: '',
    migrationDirectories: migrations.map((m) => ({
      path: m.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: m.script } },
    })),
  };
}

/** `schemaPaths`: one file or every file of a schema folder (Prisma's multi-file schema). */
export function schemasContainer(schemaPaths) {
  const paths = [schemaPaths].flat();
  return { files: paths.map((file) => ({ path: file, content: readFileSync(file, 'utf8') })) };
}

export const NO_FILTERS = Object.freeze({ externalTables: [], externalEnums: [] });

/** Error thrown by the engine: carries Prisma's error code (P3005, P3009, ...) when there is one. */
export class SchemaEngineError extends Error {
  constructor(cause) {
    const c = cause ?? {};
    const code = c.error_code ?? c.errorCode ?? c.code;
    const msg = c.message ?? (typeof c === 'string' ? c : JSON.stringify(c));
    super(code ? `${code}: ${msg}` : msg);
    this.name = 'SchemaEngineError';
    this.code = code;
    this.meta = c.meta;
    this.cause = cause;
  }
}

/**
 * Open an engine on the database given by `fields`, run `fn(engine)`, then
 * free the engine and end every pool and shadow database it used.
 */
export async function withSchemaEngine({ fields, schemaPath, log }, fn) {
  await initWasm();
  const factory = new MigrationAdapterFactory(fields);
  const logs = [];
  const logFn = (line) => {
    logs.push(line);
    log?.(line);
  };
  const datamodels = schemaPath
    ? [schemaPath].flat().map((file) => [file, readFileSync(file, 'utf8')])
    : undefined;
  let engine;
  try {
    engine = await glue.SchemaEngine.new({ datamodels }, logFn, bindMigrationAwareSqlAdapterFactory(factory));
    return await fn(engine);
  } catch (error) {
    if (error instanceof Error) throw error;
    throw new SchemaEngineError(error);
  } finally {
    try {
      engine?.free();
    } finally {
      await factory.close();
    }
  }
}

export const engineVersion = async () => {
  await initWasm();
  return glue.version();
};
