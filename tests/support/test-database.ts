import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

const admin = () =>
  new Client({
    host: process.env.PGHOST ?? '127.0.0.1',
    port: Number(process.env.PGPORT ?? 5432),
    user: process.env.PGUSER ?? 'postgres',
    password: process.env.PGPASSWORD,
    database: 'postgres',
  });

/** Tests only ever create, use and drop databases whose name marks them as test databases. */
export function assertTestDatabase(name: string): void {
  if (!/^test_[a-z0-9_]+$/.test(name)) {
    throw new Error(`refusing to touch "${name}": test databases are named test_<something>`);
  }
}

export function testDatabaseUrl(name: string): string {
  assertTestDatabase(name);
  const user = process.env.PGUSER ?? 'postgres';
  const password = process.env.PGPASSWORD ? `:${encodeURIComponent(process.env.PGPASSWORD)}` : '';
  return `postgresql://${encodeURIComponent(user)}${password}@${process.env.PGHOST ?? '127.0.0.1'}:${process.env.PGPORT ?? 5432}/${name}`;
}

/** Creates a fresh, uniquely named test database; `drop()` removes it. */
export async function createTestDatabase(
  prefix: string,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `test_${prefix}_${randomBytes(4).toString('hex')}`;
  assertTestDatabase(name);
  const client = admin();
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return {
    name,
    url: testDatabaseUrl(name),
    drop: async () => {
      const dropper = admin();
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
