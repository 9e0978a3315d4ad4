#!/usr/bin/env node
// The outbox and inbox tables, declared once in prisma/shared/ and copied into every schema:
//   prisma/shared/outbox-inbox.prisma   → prisma/<name>/outbox-inbox.prisma (header + the same models)
//   prisma/shared/outbox-inbox.init.sql → each service's first migration, byte for byte
//   prisma/shared/migrations/<name>.sql → each service's `<stamp>_<name>` migration, byte for byte
// An applied migration is never rewritten: Prisma checks its checksum. So the shared tables
// change through a new file in prisma/shared/migrations/, which this writes into every service
// that lacks it. A schema without an init migration yet (a new service) gets one written here.
//
//   node scripts/db/shared-schema.mjs           write the copies that differ
//   node scripts/db/shared-schema.mjs --check   write nothing; exit 1 when a copy drifted
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, SERVICES, isMain, migrationsDirOf } from './lib.mjs';

export const SHARED_DIR = path.join(ROOT, 'prisma', 'shared');
export const SHARED_SCHEMA = path.join(SHARED_DIR, 'outbox-inbox.prisma');
export const SHARED_INIT_SQL = path.join(SHARED_DIR, 'outbox-inbox.init.sql');
export const SHARED_MIGRATIONS_DIR = path.join(SHARED_DIR, 'migrations');
/** Schemas holding a copy: every service's, and the messaging library's test schema. */
export const SCHEMA_OWNERS = Object.freeze([...SERVICES, 'testing']);

export const COPY_HEADER =
  '// GENERATED from prisma/shared/outbox-inbox.prisma by `npm run db:shared`: edit that file, not this one.\n';

/** The copy `prisma/<owner>/outbox-inbox.prisma` must hold. */
export const renderSchemaCopy = (shared) => COPY_HEADER + shared;

export const schemaCopyPathOf = (owner) => path.join(ROOT, 'prisma', owner, 'outbox-inbox.prisma');

/** The `*_init` migration folder of a service, or undefined when it has none yet. */
export function initMigrationOf(service) {
  const dir = migrationsDirOf(service);
  if (!existsSync(dir)) return undefined;
  const name = readdirSync(dir)
    .sort()
    .find((entry) => entry.endsWith('_init'));
  return name === undefined ? undefined : path.join(dir, name, 'migration.sql');
}

/** The migrations every service holds after its init, in order: { name, file }. */
export function sharedMigrations() {
  return readdirSync(SHARED_MIGRATIONS_DIR)
    .filter((entry) => entry.endsWith('.sql'))
    .sort()
    .map((entry) => ({
      name: entry.slice(0, -'.sql'.length),
      file: path.join(SHARED_MIGRATIONS_DIR, entry),
    }));
}

/** A service's `<stamp>_<name>` migration, or undefined when it has none. */
export function sharedMigrationOf(service, name) {
  const dir = migrationsDirOf(service);
  if (!existsSync(dir)) return undefined;
  const folder = readdirSync(dir).find((entry) => entry.replace(/^\d+_/, '') === name);
  return folder === undefined ? undefined : path.join(dir, folder, 'migration.sql');
}

/** `20261205103000`: Prisma Migrate's folder prefix. */
const migrationStamp = (date) => date.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/** Every copy that differs from the shared source: { file, expected, actual, rewrite }. */
export function driftedCopies() {
  const schema = readFileSync(SHARED_SCHEMA, 'utf8');
  const sql = readFileSync(SHARED_INIT_SQL, 'utf8');
  const drifted = [];
  const compare = (file, expected, rewrite) => {
    const actual = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (actual !== expected) drifted.push({ file, expected, actual, rewrite });
  };
  for (const owner of SCHEMA_OWNERS) compare(schemaCopyPathOf(owner), renderSchemaCopy(schema), true);
  for (const service of SERVICES) {
    const init = initMigrationOf(service);
    // An applied migration is never rewritten (its checksum is in every database that ran it).
    if (init !== undefined) compare(init, sql, false);
    // A missing one is written with the current time, so it runs after what is there.
    sharedMigrations().forEach(({ name, file }, index) => {
      const copy = sharedMigrationOf(service, name);
      const stamp = migrationStamp(new Date(Date.now() + index * 1000));
      const target = copy ?? path.join(migrationsDirOf(service), `${stamp}_${name}`, 'migration.sql');
      compare(target, readFileSync(file, 'utf8'), copy === undefined);
    });
  }
  return drifted;
}

export function syncSharedSchema({ check = false, log = (line) => console.log(line) } = {}) {
  let failed = false;
  for (const copy of driftedCopies()) {
    const name = path.relative(ROOT, copy.file);
    if (check || !copy.rewrite) {
      failed = true;
      log(
        copy.rewrite
          ? `shared-schema: ${name} differs from prisma/shared: run npm run db:shared`
          : `shared-schema: ${name} differs from its source in prisma/shared; an applied migration ` +
              'is never edited: change the shared tables with a new file in prisma/shared/migrations instead',
      );
      continue;
    }
    mkdirSync(path.dirname(copy.file), { recursive: true });
    writeFileSync(copy.file, copy.expected);
    log(`shared-schema: wrote ${name}`);
  }
  if (!failed) log(`shared-schema: ${SCHEMA_OWNERS.length} schemas and their init migrations in sync`);
  return !failed;
}

if (isMain(import.meta.url)) {
  process.exitCode = syncSharedSchema({ check: process.argv.includes('--check') }) ? 0 : 1;
}
