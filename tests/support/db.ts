// Throwaway Postgres databases for tests. Every database this helper touches
// must be named `test_...`: it refuses anything else, so a test can never
// migrate or drop a real service database by mistake.
import { randomBytes } from 'node:crypto';

import pg from 'pg';

import { createDatabases, dropDatabase } from '../../scripts/db/create-databases.mjs';
import { buildUrl, pgEnv, type PgFields } from '../../scripts/db/lib.mjs';

export const TEST_DB_PREFIX = 'test_';

export function assertTestDatabaseName(name: string): string {
  if (!name.startsWith(TEST_DB_PREFIX) || !/^[a-z0-9_]+$/.test(name)) {
    throw new Error(
      `refusing to use database "${name}" in a test: test databases must be named ${TEST_DB_PREFIX}<...>`,
    );
  }
  return name;
}

/** `test_<label>_<random>`, e.g. test_order_3f9a1c2b. */
export function testDatabaseName(label: string): string {
  return assertTestDatabaseName(
    `${TEST_DB_PREFIX}${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_${randomBytes(4).toString('hex')}`,
  );
}

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly fields: PgFields;
  /** A connected client; the caller ends it. */
  connect(): Promise<pg.Client>;
  /** Run fn with a fresh client, always ending it. */
  withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

/** `name` on the server the PG* variables of `env` point at: the shared one unless told otherwise. */
export function testDatabase(name: string, env: NodeJS.ProcessEnv = process.env): TestDatabase {
  assertTestDatabaseName(name);
  const fields: PgFields = { ...pgEnv(env), database: name };
  const connect = async (): Promise<pg.Client> => {
    const client = new pg.Client(fields);
    await client.connect();
    return client;
  };
  return {
    name,
    url: buildUrl(fields),
    fields,
    connect,
    async withClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
      const client = await connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    },
    drop: () => dropDatabase(assertTestDatabaseName(name), { env }),
  };
}

/** Create a fresh, empty test database (on the server `env` points at). */
export async function createTestDatabase(
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestDatabase> {
  const db = testDatabase(testDatabaseName(label), env);
  await createDatabases([db.name], { env });
  return db;
}

/** One node of an `EXPLAIN (FORMAT JSON)` plan, as far as tests read it. */
export interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly Plans?: readonly PlanNode[];
}

/** The plan PostgreSQL picks for `text` with `values` (nothing runs), its nodes depth first. */
export async function planNodes(
  client: pg.ClientBase,
  text: string,
  values: readonly unknown[] = [],
): Promise<PlanNode[]> {
  const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `EXPLAIN (FORMAT JSON) ${text}`,
    [...values],
  );
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode): void => {
    nodes.push(node);
    node.Plans?.forEach(visit);
  };
  visit(rows[0]!['QUERY PLAN'][0]!.Plan);
  return nodes;
}

/** The scans of `table` in a plan (its INSERT, UPDATE or DELETE node left out). */
export const scansOf = (nodes: readonly PlanNode[], table: string): PlanNode[] =>
  nodes.filter((node) => node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable');
