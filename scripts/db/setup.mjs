#!/usr/bin/env node
// Local database setup: create the five service databases (idempotent), then
// apply every pending migration. Safe to re-run; prints one line per step.
//
//   node scripts/db/setup.mjs        (PG* env; defaults 127.0.0.1:5432, user postgres)
import { SERVICES, elapsed, isMain } from './lib.mjs';
import { SERVICE_DATABASES, createDatabases } from './create-databases.mjs';
import { deployService } from './migrate.mjs';

export async function setup({ log = (line) => console.log(line) } = {}) {
  const t0 = performance.now();
  const t1 = performance.now();
  const { created, existing } = await createDatabases(SERVICE_DATABASES);
  log(`setup: databases: ${created.length} created, ${existing.length} already there (${elapsed(t1)})`);
  for (const service of SERVICES) {
    // deployService prints its own line (applied / no pending migrations, with ms)
    await deployService(service, { log: (line) => log(`setup: ${line}`), single: false });
  }
  log(`setup: done (${elapsed(t0)})`);
}

if (isMain(import.meta.url)) {
  setup().catch((error) => {
    console.error(`setup: ${error?.message ?? error}`);
    process.exit(1);
  });
}
