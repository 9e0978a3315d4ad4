import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { uniqueName } from '../support/kafka';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from '../support/processes';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const SERVICES = ['order', 'payment', 'inventory', 'email', 'analytics'] as const;

const mainOf = (service: string) => join(REPO_ROOT, `dist/apps/${service}-service/src/main.js`);

function migrate(service: string, url: string): void {
  execFileSync(process.execPath, ['scripts/db/migrate.mjs', 'deploy', '--service', service, '--url', url], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
  });
}

interface HealthBody {
  status: string;
  info?: Record<string, { status: string; [detail: string]: unknown }>;
}

beforeAll(() => {
  for (const service of SERVICES) {
    if (!existsSync(mainOf(service)))
      throw new Error(`${mainOf(service)} is missing: run npm run build first`);
  }
});

describe.each(SERVICES)('%s-service boots against real Postgres and Kafka', (service) => {
  let database: TestDatabase;
  let running: RunningProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(`boot_${service}`);
    migrate(service, database.url);
  });

  afterAll(async () => {
    running?.child.kill('SIGKILL');
    await database.drop();
  });

  it('answers /health/live, /health/ready and /health/consumer with 200, then shuts down gracefully on SIGTERM', async () => {
    const port = await freePort();
    running = startNode(mainOf(service), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS,
      // Never join the real stack's consumer groups from a test.
      KAFKA_CONSUMER_GROUP: uniqueName(`boot.${service}`),
      KAFKA_TOPIC_PREFIX: `${uniqueName('boot')}.`,
      SMTP_URL: 'smtp://127.0.0.1:1025',
      LOG_FORMAT: 'json',
    });
    const process_ = running;
    const ready = await eventually(
      async () => {
        const exitedEarly = await Promise.race([process_.exited, Promise.resolve(undefined)]);
        if (exitedEarly !== undefined) throw new Error(`exited with ${exitedEarly}: ${process_.output()}`);
        const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
        return response.status === 200 ? ((await response.json()) as HealthBody) : undefined;
      },
      { timeoutMs: 45_000, what: `${service}-service ready` },
    );
    expect(ready.status).toBe('ok');
    expect(ready.info?.database?.status).toBe('up');
    // The broker and the consumer are reported on their own, and not part of readiness.
    expect(ready.info).not.toHaveProperty('kafka');
    const consumer = await fetch(`http://127.0.0.1:${port}/health/consumer`);
    expect(consumer.status).toBe(200);
    const consumerBody = (await consumer.json()) as HealthBody;
    expect(consumerBody.info?.kafka?.status).toBe('up');
    expect(consumerBody.info?.consumer?.status).toBe('up');
    // The outbox backlog is reported with readiness, and drains (inventory seeds a catalogue).
    expect(ready.info?.outbox).toMatchObject({ status: 'up', leader: true });
    await eventually(
      async () => {
        const body = (await (await fetch(`http://127.0.0.1:${port}/health/ready`)).json()) as HealthBody;
        return body.info?.outbox?.rows === 0 ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'an empty outbox' },
    );

    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    expect(((await live.json()) as HealthBody).info?.progress?.status).toBe('up');

    // Every line the service printed is structured JSON naming the service.
    const lines = process_.output().trim().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ service: `${service}-service` });
    }

    // Nest runs the shutdown hooks, then re-raises the signal: a graceful stop ends "by SIGTERM".
    process_.child.kill('SIGTERM');
    expect(await process_.exited).toBe('SIGTERM');
    expect(process_.output()).toMatch(
      /"context":"Kafka".*"msg":"disconnected"|"msg":"disconnected".*"context":"Kafka"/,
    );
  });
});

describe('readiness follows the dependencies', () => {
  it('turns /health/ready to 503 naming the database when the database goes away, while live stays 200', async () => {
    const database = await createTestDatabase('boot_ready');
    migrate('inventory', database.url);
    const port = await freePort();
    const running = startNode(mainOf('inventory'), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS,
      KAFKA_CONSUMER_GROUP: uniqueName('boot.ready'),
      KAFKA_TOPIC_PREFIX: `${uniqueName('boot')}.`,
      LOG_FORMAT: 'json',
    });
    try {
      await eventually(
        async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok ? true : undefined),
        {
          timeoutMs: 45_000,
          what: 'inventory-service ready',
        },
      );
      await database.drop(); // WITH (FORCE): the service's connections are terminated
      const notReady = await eventually(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
          return response.status === 503
            ? ((await response.json()) as { error?: Record<string, unknown> })
            : undefined;
        },
        { timeoutMs: 20_000, what: 'readiness 503' },
      );
      expect(notReady.error).toHaveProperty('database');
      expect(notReady.error).not.toHaveProperty('kafka');
      expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    } finally {
      running.child.kill('SIGKILL');
      await database.drop();
    }
  });
});

describe('start-up with a bad environment', () => {
  it('prints one line naming the missing DATABASE_URL and exits non-zero', async () => {
    const running = startNode(mainOf('order'), { KAFKA_BROKERS });
    expect(await running.exited).toBe(1);
    const lines = running.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('DATABASE_URL is required');
  });

  it('names an invalid variable and what is expected of it', async () => {
    const running = startNode(mainOf('email'), {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/email_service',
      KAFKA_BROKERS: 'not a broker list',
      SMTP_URL: 'smtp://127.0.0.1:1025',
    });
    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/KAFKA_BROKERS must be a comma-separated list of host:port/);
  });

  it('fails start-up with a clear message when its database does not exist', async () => {
    const running = startNode(mainOf('payment'), {
      PORT: String(await freePort()),
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/test_database_that_does_not_exist',
      KAFKA_BROKERS,
      KAFKA_CONSUMER_GROUP: uniqueName('boot.nodb'),
      LOG_FORMAT: 'json',
    });
    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/start-up failed.*test_database_that_does_not_exist/);
  });
});
