// Shared helpers for the database tools in scripts/db (plain Node ESM, `pg` only).
//
// Connection settings come from the standard libpq variables, with this
// project's defaults: PGHOST=127.0.0.1, PGPORT=5432, PGUSER=postgres,
// PGPASSWORD empty. A service's database is `<service>_service`.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVICES = Object.freeze(['order', 'payment', 'inventory', 'email', 'analytics']);

/** The lock key `prisma migrate` itself takes (pg_advisory_lock(72707369)), so our
 * deploy, the wasm engine and a real `prisma migrate deploy` all serialise. */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

export function assertService(name) {
  if (!SERVICES.includes(name)) {
    throw new Error(`unknown service "${name}" (expected one of: ${SERVICES.join(', ')})`);
  }
  return name;
}

export const databaseNameOf = (service) => `${assertService(service)}_service`;
export const schemaPathOf = (service) => path.join(ROOT, 'prisma', assertService(service), 'schema.prisma');
/** Every file of a service's Prisma schema folder: schema.prisma and the shared outbox-inbox.prisma copy. */
export const schemaFilesOf = (service) => {
  const dir = path.join(ROOT, 'prisma', assertService(service));
  return readdirSync(dir)
    .filter((entry) => entry.endsWith('.prisma'))
    .sort()
    .map((entry) => path.join(dir, entry));
};
export const migrationsDirOf = (service) => path.join(ROOT, 'prisma', assertService(service), 'migrations');

/** Connection fields from PG* env (no database). */
export function pgEnv(env = process.env) {
  return {
    host: env.PGHOST || '127.0.0.1',
    port: Number(env.PGPORT || 5432),
    user: env.PGUSER || 'postgres',
    password: env.PGPASSWORD || undefined,
  };
}

/** postgresql://user[:password]@host:port/database built from connection fields. */
export function buildUrl({ host, port, user, password, database }) {
  const auth = encodeURIComponent(user) + (password ? `:${encodeURIComponent(password)}` : '');
  const socket = host.startsWith('/');
  const hostPart = socket ? '' : `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const query = socket ? `?host=${encodeURIComponent(host)}&port=${port}` : '';
  return `postgresql://${auth}@${hostPart}/${encodeURIComponent(database)}${query}`;
}

export function serviceUrl(service, env = process.env) {
  return buildUrl({ ...pgEnv(env), database: databaseNameOf(service) });
}

/**
 * Split a postgres URL into separate pg fields. Separate fields (not a
 * connectionString) matter: with a connectionString, pg lets the URL override
 * an explicit `database`, which is how the adapter's shadow-db logic goes wrong.
 */
export function parseUrl(url) {
  const u = new URL(url);
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') {
    throw new Error(`not a postgres URL: ${redact(url)}`);
  }
  const env = pgEnv();
  const qHost = u.searchParams.get('host');
  const fields = {
    host: qHost || (u.hostname ? u.hostname.replace(/^\[|\]$/g, '') : env.host),
    port: Number(u.searchParams.get('port') || u.port || env.port),
    user: u.username ? decodeURIComponent(u.username) : env.user,
    password: u.password ? decodeURIComponent(u.password) : env.password,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
  };
  if (!fields.database) throw new Error(`no database name in URL: ${redact(url)}`);
  const sslmode = u.searchParams.get('sslmode');
  if (sslmode && sslmode !== 'disable') fields.ssl = { rejectUnauthorized: sslmode === 'verify-full' };
  return fields;
}

export function redact(url) {
  return String(url).replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

/** Quote an identifier for SQL. */
export const ident = (name) => `"${String(name).replace(/"/g, '""')}"`;

export const sha256Hex = (text) => createHash('sha256').update(text).digest('hex');

/**
 * Read a Prisma Migrate folder: `<dir>/<name>/migration.sql` (sorted by name, as
 * Prisma does) plus `migration_lock.toml`.
 */
export function readMigrations(dir) {
  const migrations = [];
  if (existsSync(dir)) {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      if (!statSync(full).isDirectory()) continue;
      const file = path.join(full, 'migration.sql');
      if (!existsSync(file)) throw new Error(`migration folder without migration.sql: ${full}`);
      const script = readFileSync(file, 'utf8');
      migrations.push({ name: entry, file, script, checksum: sha256Hex(readFileSync(file)) });
    }
  }
  const lockPath = path.join(dir, 'migration_lock.toml');
  const lockfile = existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null;
  return { dir, migrations, lockfile };
}

/** Small CLI argument parser: --flag value / --flag=value / bare positionals. */
export function parseArgs(argv) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      out._.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = true;
  }
  return out;
}

export const elapsed = (t0) => `${Math.round(performance.now() - t0)} ms`;

/** True when this module is the entry point (`node scripts/db/x.mjs`). */
export const isMain = (importMetaUrl) =>
  Boolean(process.argv[1]) && path.resolve(process.argv[1]) === fileURLToPath(importMetaUrl);
