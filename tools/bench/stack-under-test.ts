import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { consumerGroupOf } from '@pipeline/contracts';
import { Client } from 'pg';
import { serviceRuntimeEnv } from './service-runtime';

export const Services = ['order', 'payment', 'inventory', 'email', 'analytics'] as const;
export type Service = (typeof Services)[number];

export interface StackOptions {
  readonly repoRoot: string;
  readonly pg: { host: string; port: number; user: string };
  /** Databases are `<dbPrefix><service>_service`, dropped and created afresh for every run. */
  readonly dbPrefix: string;
  readonly portBase: number;
  readonly kafkaBrokers: string;
  readonly topicPrefix: string;
  readonly groupPrefix: string;
  /** `counting`: the bench's own sink at smtpUrl (started by the bench); `external`: already running. */
  readonly mailSink: 'counting' | 'external';
  readonly smtpUrl: string;
  readonly logDir: string;
  /** Where to write each service's V8 CPU profile (node --cpu-prof), when set. */
  readonly cpuProfileDir?: string;
  /** Extra environment for every service (e.g. LOG_LEVEL). */
  readonly env: Readonly<Record<string, string>>;
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

export const databaseName = (options: StackOptions, service: Service | 'pgbench'): string =>
  service === 'pgbench' ? `${options.dbPrefix}pgbench` : `${options.dbPrefix}${service}_service`;

export function databaseUrl(options: StackOptions, database: string): string {
  const { host, port, user } = options.pg;
  return `postgresql://${encodeURIComponent(user)}@${host}:${port}/${database}`;
}

export async function withClient<T>(
  options: StackOptions,
  database: string,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ ...options.pg, database });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Drops and creates the databases: every run starts with empty inboxes, outboxes and tables. */
export async function recreateDatabases(options: StackOptions, names: readonly string[]): Promise<void> {
  await withClient(options, 'postgres', async (client) => {
    for (const name of names) {
      await client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${ident(name)}`);
    }
  });
}

export async function dropDatabases(options: StackOptions, names: readonly string[]): Promise<void> {
  await withClient(options, 'postgres', async (client) => {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
  });
}

/** Applies a service's migrations to a database with the project's own migration tool. */
export function migrate(options: StackOptions, service: Service, database: string): Promise<void> {
  return run(options.repoRoot, process.execPath, [
    'scripts/db/migrate.mjs',
    'deploy',
    '--service',
    service,
    '--url',
    databaseUrl(options, database),
  ]);
}

export function run(cwd: string, command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

export const servicePort = (options: StackOptions, service: Service): number =>
  options.portBase + Services.indexOf(service);

/** The five services as child processes, started the way scripts/stack.sh starts them. */
export class RunningStack {
  readonly processes = new Map<Service, ChildProcess>();

  constructor(private readonly options: StackOptions) {}

  pids(): Record<string, number> {
    const pids: Record<string, number> = {};
    for (const [service, child] of this.processes) if (child.pid !== undefined) pids[service] = child.pid;
    return pids;
  }

  async start(services: readonly Service[] = Services): Promise<void> {
    const o = this.options;
    const runtime = serviceRuntimeEnv(o.repoRoot);
    for (const service of services) {
      const log = createWriteStream(`${o.logDir}/${service}-service.log`);
      const profile = o.cpuProfileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfileDir}`, `--cpu-prof-name=${service}-service.cpuprofile`]
        : [];
      const child = spawn(process.execPath, [...profile, `dist/apps/${service}-service/src/main.js`], {
        cwd: o.repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...runtime,
          ...o.env,
          PORT: String(servicePort(o, service)),
          DATABASE_URL: databaseUrl(o, databaseName(o, service)),
          KAFKA_BROKERS: o.kafkaBrokers,
          KAFKA_TOPIC_PREFIX: o.topicPrefix,
          KAFKA_CONSUMER_GROUP: o.groupPrefix + consumerGroupOf(service),
          SMTP_URL: o.smtpUrl,
          OTEL_SERVICE_NAME: `${service}-service`,
        },
      });
      // Two streams into one file: neither may end it (a late line on the other would then be a
      // write after end, which throws); the process's exit does.
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
      child.once('close', () => log.end());
      this.processes.set(service, child);
    }
    for (const service of services) await this.waitReady(service);
  }

  private async waitReady(service: Service): Promise<void> {
    const url = `http://127.0.0.1:${servicePort(this.options, service)}/health/ready`;
    const until = Date.now() + 90_000;
    while (Date.now() < until) {
      const child = this.processes.get(service);
      if (child?.exitCode !== null)
        throw new Error(`${service}-service exited during start-up (log: ${this.options.logDir})`);
      try {
        if ((await fetch(url)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${service}-service not ready after 90 s (${url})`);
  }

  /** SIGTERM (graceful: finish the batch, commit, relay), then SIGKILL after 10 s. */
  async stop(): Promise<void> {
    const exits = [...this.processes.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    );
    await Promise.all(exits);
  }
}

export interface DatabaseCounters {
  readonly commits: number;
  readonly rollbacks: number;
  readonly inserted: number;
  readonly updated: number;
  readonly deleted: number;
}

/** Commits and row changes per database so far (pg_stat_database; updated with some delay). */
export async function databaseCounters(
  options: StackOptions,
  names: readonly string[],
): Promise<Record<string, DatabaseCounters>> {
  return withClient(options, 'postgres', async (client) => {
    const { rows } = await client.query<{
      datname: string;
      xact_commit: string;
      xact_rollback: string;
      tup_inserted: string;
      tup_updated: string;
      tup_deleted: string;
    }>(
      `SELECT datname, xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted
         FROM pg_stat_database WHERE datname = ANY($1::text[])`,
      [names],
    );
    return Object.fromEntries(
      rows.map((r) => [
        r.datname,
        {
          commits: Number(r.xact_commit),
          rollbacks: Number(r.xact_rollback),
          inserted: Number(r.tup_inserted),
          updated: Number(r.tup_updated),
          deleted: Number(r.tup_deleted),
        },
      ]),
    );
  });
}
