// Measures one set-based consumer hop (inbox claim + outbox insert of N events, one transaction)
// through Prisma's raw API and through `pg` directly, on the same SQL and the same database.
// Usage: node dist/tools/bench/sql-path.js [events per run, default 4000]
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { inTransaction, sqlOverPrisma } from '@pipeline/database';
import type { DatabaseClient, PrismaClientClass } from '@pipeline/service-kit';
import pg from 'pg';
import { runMain } from '../run-main';
import { cpuSeconds, machineCpu } from './proc-stats';
import { runPath, type InTransaction, type PathRun } from './sql-path-hop';

const REPO_ROOT = join(__dirname, '../../..');
const SIZES = [1, 20, 100] as const;
/** Two connections in parallel, as in /work/shared/PERFORMANCE.md's figures. */
const WORKERS = 2;
const WARMUP_HOPS = 20;

const pgFields = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
};

/** order-service's first migration: the `outbox` (with its NOTIFY trigger) and `inbox` tables. */
function outboxAndInboxDdl(): string {
  const dir = join(REPO_ROOT, 'prisma/order/migrations');
  const first = readdirSync(dir)
    .filter((name) => /^\d+_/.test(name))
    .sort()[0];
  if (first === undefined) throw new Error(`no migration in ${dir}`);
  return readFileSync(join(dir, first, 'migration.sql'), 'utf8');
}

/** Any service's generated client will do: the hop uses only `$transaction` and raw SQL. */
async function loadPrismaClient(): Promise<PrismaClientClass> {
  const file = join(REPO_ROOT, 'dist/apps/order-service/src/generated/prisma/client.js');
  const loaded = (await import(file)) as { PrismaClient: PrismaClientClass };
  return loaded.PrismaClient;
}

async function withAdmin<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...pgFields, database: 'postgres' });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** CPU seconds so far of the database backends serving `applicationName`. */
async function backendCpu(admin: pg.Client, database: string, applicationName: string): Promise<number> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
    [database, applicationName],
  );
  return rows.reduce((sum, { pid }) => sum + (cpuSeconds(pid) ?? 0), 0);
}

interface Row extends PathRun {
  readonly path: 'prisma' | 'pg';
  readonly n: number;
  readonly pgCpuMs: number;
}

function render(rows: readonly Row[]): string {
  const lines = [
    '| events per transaction | path | events/s | Node CPU ms per event | PostgreSQL backend CPU ms per event |',
    '| ---: | --- | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    const perEvent = (ms: number) => (ms / row.events).toFixed(3);
    const rate = Math.round(row.events / (row.wallMs / 1000)).toLocaleString('en-US');
    lines.push(
      `| ${row.n} | ${row.path} | ${rate} | ${perEvent(row.nodeCpuMs)} | ${perEvent(row.pgCpuMs)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  const eventsPerRun = Number(process.argv[2] ?? 4000);
  if (!Number.isInteger(eventsPerRun) || eventsPerRun < 100)
    throw new Error('events per run: an integer >= 100');
  const database = `bench_sql_path_${randomBytes(4).toString('hex')}`;
  const PrismaClient = await loadPrismaClient();
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${database}`));
  const pools: pg.Pool[] = [];
  let prisma: DatabaseClient | undefined;
  let report = '';
  const machineBefore = machineCpu();
  const loadBefore = loadavg();
  try {
    const poolFor = (applicationName: string) => {
      const pool = new pg.Pool({ ...pgFields, database, max: WORKERS, application_name: applicationName });
      pools.push(pool);
      return pool;
    };
    const pgPool = poolFor('sql-path-pg');
    await pgPool.query(outboxAndInboxDdl());
    prisma = new PrismaClient({ adapter: new PrismaPg(poolFor('sql-path-prisma')) });
    const client = prisma;
    const paths: Record<Row['path'], InTransaction> = {
      pg: (work) => inTransaction(pgPool, work),
      prisma: (work) => client.$transaction((tx) => work(sqlOverPrisma(tx))),
    };
    const rows: Row[] = [];
    await withAdmin(async (admin) => {
      for (const n of SIZES) {
        const hops = Math.ceil(eventsPerRun / n);
        // Alternate which path goes first, so a drift in the machine's load hits both.
        const order: Row['path'][] = n === 20 ? ['pg', 'prisma'] : ['prisma', 'pg'];
        for (const path of order) {
          await pgPool.query('TRUNCATE inbox, outbox');
          await runPath(paths[path], n, WARMUP_HOPS, WORKERS);
          const backendsBefore = await backendCpu(admin, database, `sql-path-${path}`);
          const run = await runPath(paths[path], n, hops, WORKERS);
          const pgCpuMs = ((await backendCpu(admin, database, `sql-path-${path}`)) - backendsBefore) * 1000;
          rows.push({ ...run, path, n, pgCpuMs });
          process.stderr.write(`sql-path: n=${n} ${path} done\n`);
        }
      }
    });
    const machineAfter = machineCpu();
    const busy =
      (machineAfter.busy - machineBefore.busy) / Math.max(1e-9, machineAfter.total - machineBefore.total);
    report =
      `${render(rows)}\n\n` +
      `${eventsPerRun} events per run, ${WORKERS} connections, ${WARMUP_HOPS} warm-up hops; ` +
      `machine busy ${(busy * 100).toFixed(0)} % of all cores during the runs (this process and PostgreSQL included); ` +
      `load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}\n`;
  } finally {
    await prisma?.$disconnect();
    await Promise.all(pools.filter((pool) => !pool.ended).map((pool) => pool.end()));
    await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
  // After the drop: a reader that goes away early (| head) must not leave the database behind.
  process.stdout.write(report);
  return 0;
}

runMain('sql-path', main);
