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

/** The console beside them: after the sink (portBase + 5), reading the bench's topics and services. */
export const consolePort = (options: StackOptions): number => options.portBase + 6;

/** The console's environment contract (apps/console/src/config.ts), pointed at the bench's run. */
export function consoleEnv(options: StackOptions): Record<string, string> {
  return {
    PORT: String(consolePort(options)),
    HOST: '127.0.0.1',
    KAFKA_BROKERS: options.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: options.topicPrefix,
    CONSOLE_CONSUMER_GROUP: `${options.groupPrefix}console`,
    // The services' LOG_LEVEL (`log`, Nest's) is not one of the console's (pino's).
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(
      Services.map((s) => [`${s.toUpperCase()}_SERVICE_URL`, `http://127.0.0.1:${servicePort(options, s)}`]),
    ),
  };
}

export type StackProcessName = Service | 'console';

/** The five services (and the console) as child processes, started the way scripts/stack.sh starts them. */
export class RunningStack {
  readonly processes = new Map<StackProcessName, ChildProcess>();

  constructor(private readonly options: StackOptions) {}

  pids(): Partial<Record<StackProcessName, number>> {
    const pids: Partial<Record<StackProcessName, number>> = {};
    for (const [name, child] of this.processes) if (child.pid !== undefined) pids[name] = child.pid;
    return pids;
  }

  async start(services: readonly Service[] = Services): Promise<void> {
    const o = this.options;
    for (const service of services)
      this.spawn(service, `dist/apps/${service}-service/src/main.js`, {
        ...o.env,
        PORT: String(servicePort(o, service)),
        DATABASE_URL: databaseUrl(o, databaseName(o, service)),
        KAFKA_BROKERS: o.kafkaBrokers,
        KAFKA_TOPIC_PREFIX: o.topicPrefix,
        KAFKA_CONSUMER_GROUP: o.groupPrefix + consumerGroupOf(service),
        SMTP_URL: o.smtpUrl,
        OTEL_SERVICE_NAME: `${service}-service`,
      });
    for (const service of services)
      await this.waitReady(service, `http://127.0.0.1:${servicePort(o, service)}/health/ready`);
  }

  /** The operations console, as `npm run stack` starts it, with the same runtime levers. */
  async startConsole(): Promise<void> {
    this.spawn('console', 'dist/apps/console/src/main.js', consoleEnv(this.options));
    await this.waitReady('console', `http://127.0.0.1:${consolePort(this.options)}/health`);
  }

  private spawn(name: StackProcessName, entry: string, env: Record<string, string>): void {
    const o = this.options;
    const label = name === 'console' ? 'console' : `${name}-service`;
    const log = createWriteStream(`${o.logDir}/${label}.log`);
    const profile = o.cpuProfileDir
      ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfileDir}`, `--cpu-prof-name=${label}.cpuprofile`]
      : [];
    const child = spawn(process.execPath, [...profile, entry], {
      cwd: o.repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...serviceRuntimeEnv(o.repoRoot), ...env },
    });
    // Two streams into one file: neither may end it (a late line on the other would then be a
    // write after end, which throws); the process's exit does.
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    this.processes.set(name, child);
  }

  private async waitReady(name: StackProcessName, url: string): Promise<void> {
    const label = name === 'console' ? 'console' : `${name}-service`;
    const until = Date.now() + 90_000;
    while (Date.now() < until) {
      const child = this.processes.get(name);
      if (child?.exitCode !== null)
        throw new Error(`${label} exited during start-up (log: ${this.options.logDir})`);
      try {
        if ((await fetch(url)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${label} not ready after 90 s (${url})`);
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
