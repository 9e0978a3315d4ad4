// Starts a real service as a child process from dist/, the way every e2e test needs it: a fresh
// test database with the service's migrations, its own consumer group, and the test file's topic
// prefix, so test files run in parallel with each other and with the dev stack.
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { deployService } from '../../scripts/db/migrate.mjs';
import { createTestDatabase, type TestDatabase } from './db';
import { KAFKA_BROKERS, uniqueName } from './kafka';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from './processes';

export type ServiceName = 'order' | 'payment' | 'inventory' | 'email' | 'analytics';

/** The contract topics each service's consumer subscribes to (its app.module's `consumes`). */
export const CONSUMED_TOPICS: Readonly<Record<ServiceName, readonly string[]>> = {
  order: ['payments', 'inventory'],
  payment: ['orders', 'inventory'],
  inventory: ['payments'],
  email: ['orders'],
  analytics: ['orders'],
};

export const SMTP_URL = 'smtp://127.0.0.1:1025';
export const MAILDEV_API = 'http://127.0.0.1:1080/api/email';

export interface StartServiceOptions {
  /** Topic prefix, e.g. `uniqueName('e2e') + '.'`; services sharing one see each other's events. */
  readonly prefix: string;
  /** Consumer group; a unique one by default. */
  readonly group?: string;
  /** Extra or overriding environment, e.g. `{ ANALYTICS_GRACE_MS: '60000' }`. */
  readonly env?: Record<string, string>;
  /** Names the test database and the default group; defaults to the service name. */
  readonly label?: string;
  /**
   * Run on this test database (migrated here if needed) instead of a fresh one, e.g. to restart a
   * service on its state; the caller drops it then, `stop()` does not.
   */
  readonly database?: TestDatabase;
  /** The checkout whose `dist/` to run (a fork test's clone); this one by default. */
  readonly root?: string;
}

export interface ServiceUnderTest {
  readonly name: ServiceName;
  readonly baseUrl: string;
  readonly database: TestDatabase;
  readonly process: RunningProcess;
  readonly prefix: string;
  readonly group: string;
  /** Stops the process (SIGTERM, SIGKILL after 10 s) and drops the database it created; topics stay. */
  stop(): Promise<void>;
}

export async function startService(
  name: ServiceName,
  options: StartServiceOptions,
): Promise<ServiceUnderTest> {
  const label = options.label ?? name;
  const group = options.group ?? uniqueName(`${label}.group`);
  const owned = options.database === undefined;
  const database = options.database ?? (await createTestDatabase(`e2e_${label}`));
  const dropOwned = async () => (owned ? database.drop() : undefined);
  try {
    await deployService(name, { url: database.url, log: () => undefined });
  } catch (error) {
    await dropOwned();
    throw error;
  }
  const port = await freePort();
  const child = startNode(join(options.root ?? REPO_ROOT, `dist/apps/${name}-service/src/main.js`), {
    PORT: String(port),
    DATABASE_URL: database.url,
    KAFKA_BROKERS: KAFKA_BROKERS.join(','),
    KAFKA_TOPIC_PREFIX: options.prefix,
    KAFKA_TOPIC_PARTITIONS: '3',
    KAFKA_CONSUMER_GROUP: group,
    SMTP_URL,
    LOG_FORMAT: 'json',
    CONSUMER_RETRY_INITIAL_BACKOFF_MS: '50',
    CONSUMER_RETRY_MAX_BACKOFF_MS: '400',
    // No trace backend unless a test asks for one (OpenTelemetry's default is OTLP to :4318).
    OTEL_TRACES_EXPORTER: 'none',
    ...options.env,
  });
  const stop = async (): Promise<void> => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGTERM');
      const timer = setTimeout(() => child.child.kill('SIGKILL'), 10_000);
      await child.exited;
      clearTimeout(timer);
    }
    await dropOwned();
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(name, baseUrl, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { name, baseUrl, database, process: child, prefix: options.prefix, group, stop };
}

/** Polls /health/ready; fails at once, with the process output, if the process exits. */
async function waitUntilReady(name: ServiceName, baseUrl: string, service: RunningProcess): Promise<void> {
  let exitCode: number | string | undefined;
  void service.exited.then((code) => (exitCode = code));
  try {
    // `false` (not undefined) ends the polling as soon as the process is gone.
    const ready = await eventually(
      async () => (exitCode !== undefined ? false : (await fetch(`${baseUrl}/health/ready`)).ok || undefined),
      { timeoutMs: 60_000, intervalMs: 100, what: `${name}-service ready` },
    );
    if (!ready) throw new Error(`${name}-service exited with ${exitCode} before it was ready`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- ${name}-service output ---\n${service.output().slice(-4000)}`);
  }
}

/**
 * Deletes every topic under `prefix` (the services provision the whole catalogue under it).
 * Refuses prefixes that are not a test's (`test.`), so real topics can never go.
 */
export async function deletePrefixedTopics(kafka: Kafka, prefix: string): Promise<void> {
  if (!prefix.startsWith('test.') || prefix.length <= 'test.'.length) {
    throw new Error(`refusing to delete topics under "${prefix}": not a test prefix`);
  }
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

export interface HttpAnswer<T = unknown> {
  readonly status: number;
  readonly body: T;
}

/** A JSON request; the body is parsed when there is one (else undefined). */
export async function httpJson<T = unknown>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer<T>> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

export interface MaildevEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly to: readonly { readonly address: string }[];
  readonly headers: Readonly<Record<string, string>>;
}

/** The emails maildev holds for one address (unique per test, so tests never see each other's). */
export async function emailsTo(address: string): Promise<MaildevEmail[]> {
  const { body } = await httpJson<MaildevEmail[]>('GET', MAILDEV_API);
  return body.filter((email) => email.to.some((to) => to.address === address));
}
