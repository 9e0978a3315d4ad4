import { PipelineMetrics } from '@pipeline/observability';
import type pg from 'pg';
import type { SqlClient } from './sql-client';

/**
 * The `options` of every session a service opens (its pool, its relay's session): `jit=off`.
 * PostgreSQL JIT-compiles a statement whose estimated cost passes `jit_above_cost`, which pays
 * for itself only in long analytical queries. A service's statements are short, and on a server
 * without statistics (autovacuum off, as on these machines) a few-millisecond statement on a
 * grown table is priced past the threshold: the timeline positions of 100 events on 360,000
 * entries ran in 15 ms with the compile, 2 ms without (BENCHMARKS.md).
 */
export const SERVICE_SESSION_OPTIONS = '-c jit=off';

/**
 * How the hot paths talk to Postgres: plain `pg`, one round trip per statement, no ORM in
 * between. Inside a consumer batch or an HTTP group commit it is the transaction's connection.
 */
export interface Sql {
  query<Row = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<Row[]>;
  /** Runs a statement and returns how many rows it affected. */
  execute(text: string, values?: readonly unknown[]): Promise<number>;
}

type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * How many statement texts get a name: each is prepared once on every connection that runs it,
 * and a prepared statement holds server memory for the connection's life. The hot paths' texts
 * are constants (arrays in, `unnest` out), a few dozen per service; a text past the bound runs
 * unnamed, as pg runs any statement, parsed and planned each time.
 */
export const MAX_PREPARED_STATEMENTS = 256;

const statementNames = new Map<string, string>();

/**
 * A statement with parameters as a named (prepared) query: PostgreSQL parses and plans it once per
 * connection, then only binds and runs it, where an unnamed statement (pg's default) is parsed and
 * planned at every call. For the outbox's hand-off INSERT, planning took 0.34 ms and execution
 * 0.22 (BENCHMARKS.md). A statement without parameters stays on the simple protocol (BEGIN,
 * COMMIT, and texts of several statements, which the extended protocol cannot carry). The same
 * text always gets the same name in a process, so pg's per-connection check that a name means one
 * text holds. A connection pooler in transaction mode must support protocol-level prepared
 * statements (PgBouncer 1.21 and later, `max_prepared_statements`).
 */
export function preparedQuery(text: string, values?: readonly unknown[]): pg.QueryConfig | string {
  if (values === undefined) return text;
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= MAX_PREPARED_STATEMENTS) return { text, values: values as unknown[] };
    name = statementName(text, statementNames.size + 1);
    statementNames.set(text, name);
  }
  return { name, text, values: values as unknown[] };
}

/**
 * A name a trace can be read by (the pg instrumentation names a prepared statement's span after
 * it): the statement's first word, the first table it names (a system catalog, `pg_*`, is not
 * one), and a number for uniqueness, such as `insert_inbox_3` or `with_outbox_7`.
 */
export function statementName(text: string, n: number): string {
  const verb = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? 'statement';
  const table = /\b(?:INTO|FROM|UPDATE)\s+"?(?!pg_)(\w+)/i.exec(text)?.[1]?.toLowerCase();
  return table === undefined ? `${verb}_${n}` : `${verb}_${table}_${n}`;
}

/** `Sql` over a pg client, pool client or pool. */
export function sqlOver(client: Queryable): Sql {
  return {
    query: async <Row>(text: string, values?: readonly unknown[]) =>
      (await client.query(preparedQuery(text, values))).rows as Row[],
    execute: async (text: string, values?: readonly unknown[]) =>
      (await client.query(preparedQuery(text, values))).rowCount ?? 0,
  };
}

/** `Sql` over a Prisma (transaction) client, for the CRUD paths that stay on Prisma. */
export function sqlOverPrisma(client: SqlClient): Sql {
  return {
    query: <Row>(text: string, values: readonly unknown[] = []) =>
      client.$queryRawUnsafe<Row[]>(text, ...values),
    execute: (text: string, values: readonly unknown[] = []) => client.$executeRawUnsafe(text, ...values),
  };
}

export interface InTransactionOptions {
  /**
   * Gives up when the pool has no connection for us within this time, with a ConnectTimeoutError
   * (SQLSTATE 08001, sqlclient_unable_to_establish_sqlconnection), which `isUnavailable` reads as
   * the database being unavailable: an HTTP request gets 503 with Retry-After. Without it the
   * caller waits in the pool's queue as long as it takes.
   */
  readonly connectTimeoutMs?: number;
}

/**
 * Runs `work` in one transaction on a connection of `pool`: COMMIT when it resolves, ROLLBACK
 * when it throws (the error is rethrown). A connection whose ROLLBACK failed is discarded. `work`
 * also gets the connection itself, for a caller that wraps its statements (the consumer's
 * transaction records which errors the database raised).
 */
export async function inTransaction<R>(
  pool: pg.Pool,
  work: (sql: Sql, client: pg.PoolClient) => Promise<R>,
  options: InTransactionOptions = {},
): Promise<R> {
  const client = await connect(pool, options.connectTimeoutMs);
  let broken: Error | undefined;
  // A checked-out connection the server ends (a Postgres restart) emits 'error'; the pool listens
  // only to idle ones, and an unheard 'error' ends the process. The query in flight fails anyway.
  const ignore = (): void => undefined;
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    const result = await work(sqlOver(client), client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}

/** SQLSTATE 08001 (sqlclient_unable_to_establish_sqlconnection): the database is unavailable for now. */
export class ConnectTimeoutError extends Error {
  override readonly name = 'ConnectTimeoutError';
  readonly code = '08001';
  readonly retriable = true;
}

async function connect(pool: pg.Pool, timeoutMs: number | undefined): Promise<pg.PoolClient> {
  if (timeoutMs === undefined) return pool.connect();
  const pending = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The connection may still come: back to the pool with it, unused.
      pending.then(
        (client) => client.release(),
        () => undefined,
      );
      reject(new ConnectTimeoutError(`no database connection free within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Counts every statement the client sends in `pipeline_db_statements_total` (BEGIN and COMMIT
 * included): with commits from `pg_stat_database`, what a batch costs the database whatever the
 * machine's speed. Applied to each connection of a service's pool and to the relay's session.
 */
export function countStatements(client: pg.ClientBase): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    PipelineMetrics.dbStatements.inc();
    return query(...args);
  };
}
