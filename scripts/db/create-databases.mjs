#!/usr/bin/env node
// Creates the services' databases if they do not exist (idempotent, safe to run
// concurrently). Connects to the `postgres` maintenance database with the PG*
// env (defaults 127.0.0.1:5432, user postgres).
//
//   node scripts/db/create-databases.mjs [db_name ...]   (default: the five <service>_service)
import pg from 'pg';

import { SERVICES, databaseNameOf, elapsed, ident, isMain, pgEnv } from './lib.mjs';

export const SERVICE_DATABASES = Object.freeze(SERVICES.map(databaseNameOf));

/**
 * Create each database in `names` that does not exist yet.
 * Returns { created: string[], existing: string[] }.
 */
export async function createDatabases(
  names = SERVICE_DATABASES,
  { env = process.env, maintenanceDb = 'postgres' } = {},
) {
  const client = new pg.Client({
    ...pgEnv(env),
    database: maintenanceDb,
    application_name: 'order-pipeline-createdb',
  });
  await client.connect();
  const created = [];
  const existing = [];
  try {
    for (const name of names) {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount > 0) {
        existing.push(name);
        continue;
      }
      try {
        await client.query(`CREATE DATABASE ${ident(name)}`);
        created.push(name);
      } catch (error) {
        // 42P04 duplicate_database; 23505 when two CREATE DATABASE race on pg_database's unique index.
        if (error?.code === '42P04' || error?.code === '23505') existing.push(name);
        else throw error;
      }
    }
  } finally {
    await client.end();
  }
  return { created, existing };
}

/** Connections that are closing get this long to go before DROP ... WITH (FORCE) ends them. */
const CLOSING_CONNECTIONS_GRACE_MS = 2_000;

/**
 * Drop a database (used by tests); terminates its connections first. A pool that was just ended
 * may still have connections on their way out: killing one of those makes its client emit an
 * error nobody listens to any more (an uncaught exception in the test run), so the drop waits a
 * moment for them to leave on their own, then forces out whatever is left.
 */
export async function dropDatabase(name, { env = process.env, maintenanceDb = 'postgres' } = {}) {
  const client = new pg.Client({ ...pgEnv(env), database: maintenanceDb });
  await client.connect();
  try {
    const deadline = Date.now() + CLOSING_CONNECTIONS_GRACE_MS;
    const others = async () =>
      Number(
        (await client.query('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [name])).rows[0]
          .n,
      );
    while (Date.now() < deadline && (await others()) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

if (isMain(import.meta.url)) {
  const t0 = performance.now();
  const names = process.argv.slice(2);
  createDatabases(names.length > 0 ? names : SERVICE_DATABASES).then(
    ({ created, existing }) => {
      console.log(
        `create-databases: created [${created.join(', ')}], already there [${existing.join(', ')}] (${elapsed(t0)})`,
      );
    },
    (error) => {
      console.error(`create-databases: ${error?.message ?? error}`);
      process.exit(1);
    },
  );
}
