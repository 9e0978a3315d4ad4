// A Postgres cluster of the suite's own (initdb + pg_ctl on a free port, trust auth, a temporary
// data directory), so the Postgres-restart fault never touches the shared server on 5432.
import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../../support/db';
import { freePort } from '../../support/processes';

const run = promisify(execFile);
const PG_BIN = process.env.FAULTS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface OwnPostgres {
  readonly port: number;
  createDatabase(label: string): Promise<TestDatabase>;
  /** Fast shutdown: every connection is terminated, as when a database server restarts. */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** Postgres refuses to run as root: run its tools as the `postgres` user when we are root. */
async function asPostgres(binary: string, args: string[]): Promise<void> {
  const command = join(PG_BIN, binary);
  const root = process.getuid?.() === 0;
  await run(root ? 'runuser' : command, root ? ['-u', 'postgres', '--', command, ...args] : args, {
    timeout: 120_000,
  });
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'faults-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () =>
    asPostgres('pg_ctl', ['start', '-w', '-t', '60', '-D', data, '-l', join(dir, 'log'), '-o', options]);
  const stop = () => asPostgres('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', data]);
  const own: OwnPostgres = {
    port,
    start,
    stop,
    async createDatabase(label) {
      const env = { PGHOST: '127.0.0.1', PGPORT: String(port), PGUSER: 'postgres' };
      // Dropping is moot: the whole cluster goes with destroy().
      return { ...(await createTestDatabase(label, env)), drop: () => Promise.resolve() };
    },
    async destroy() {
      await stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await start();
  } catch (error) {
    await own.destroy();
    throw error;
  }
  return own;
}
