// Fork it in minutes, as a newcomer would: a fresh clone of this commit, the generator, a small
// business change (tests/generator/fixtures/ship-every-confirmed-order.patch: a shipment scheduled
// for every confirmed order, shipping within two working days), a build, and the new service
// running against the real Kafka and Postgres. The generated service is never committed here.
//
// The pipeline runs from the clone: order, payment and inventory make the confirmations (orders
// placed over HTTP), shipping-service reacts to them. email and analytics are left out: nothing
// they do reaches `shipments`, and two more processes on two cores cost time for nothing this test
// checks. node_modules is a symlink to this checkout's: `npm ci --offline` in the clone takes about
// 45 s more and tests npm, not the generator.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterHeaders, Topics, headerValue } from '@pipeline/contracts';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { caughtUp, produceEvent, reproduce } from '../support/events';
import { KAFKA_BROKERS, readTopic, testKafka, uniqueName } from '../support/kafka';
import { REPO_ROOT, eventually, freePort, startNode, type RunningProcess } from '../support/processes';
import {
  deletePrefixedTopics,
  httpJson,
  startService,
  type ServiceName,
  type ServiceUnderTest,
} from '../support/service-harness';

const PATCH = join(REPO_ROOT, 'tests/generator/fixtures/ship-every-confirmed-order.patch');
const GENERATE = ['nx', 'g', '@pipeline/tools:service', 'shipping'];
const GENERATE_ARGS = ['--consumes', 'order.confirmed', '--produces', 'shipment.scheduled'];
const ORDERS = 5;

/** Runs a command in the clone; fails with its output. */
function run(cwd: string, command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_SKIP_NX_CACHE: 'true' },
    timeout: 240_000,
  });
  // vitest colours its summary even into a pipe.
  const output = `${result.stdout}${result.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${output}`);
  return output;
}

const SAGA: readonly ServiceName[] = ['order', 'payment', 'inventory'];

describe('forking: a generated shipping-service in a fresh clone', () => {
  const clone = mkdtempSync(join(tmpdir(), 'order-pipeline-fork-'));
  const kafka = testKafka();
  const prefix = `${uniqueName('fork')}.`;
  const group = uniqueName('fork.shipping.group');
  const timings: Record<string, number> = {};
  let generated = '';
  let database: TestDatabase | undefined;
  let service: RunningProcess | undefined;
  let saga: ServiceUnderTest[] = [];
  let admin: Admin;

  const timed = <T>(step: string, fn: () => T): T => {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      timings[step] = Math.round(performance.now() - t0);
    }
  };

  beforeAll(async () => {
    timed('clone', () => {
      execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone]);
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'));
    });
    // What a newcomer runs after `npm ci`: the clients of the five (gitignored). The generator's
    // follow-up steps then generate the new client, build, and rewrite asyncapi, the contracts
    // snapshot and the k8s manifests.
    timed('prisma generate', () => run(clone, 'bash', ['scripts/prisma-generate.sh']));
    generated = timed('generate', () => run(clone, 'npx', [...GENERATE, ...GENERATE_ARGS]));
    timed('build', () => run(clone, 'bash', ['scripts/build.sh']));
    admin = kafka.admin();
    await admin.connect();
  }, 300_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await Promise.allSettled(saga.map((running) => running.stop()));
    await database?.drop();
    await admin?.disconnect();
    await deletePrefixedTopics(kafka, prefix);
    rmSync(clone, { recursive: true, force: true });
    console.log(`[fork] step durations (ms): ${JSON.stringify(timings)}`);
  });

  it('generates the service, wired in everywhere, and prints what to do next', () => {
    expect(generated).toContain(
      'CREATE apps/shipping-service/src/schedule-shipment/schedule-shipment.module.ts',
    );
    expect(generated).toContain('CREATE libs/contracts/src/events/shipment-scheduled.event.ts');
    expect(generated).toContain('[contracts] shipment.scheduled v1: new');
    expect(generated).toContain('shipping-service is ready on port 3006');
    const status = run(clone, 'git', ['status', '--porcelain']);
    for (const wired of [
      'docker-compose.yml',
      'eslint.config.mjs',
      'README.md',
      'tools/stack/stack-plan.ts',
      'tools/bench/stack-under-test.ts',
      'infra/k8s/prod/shipping-service.yaml',
      'docs/asyncapi.yaml',
      'libs/contracts/snapshot/contracts.snapshot.json',
      'prisma/shipping/',
    ]) {
      expect(status).toContain(wired);
    }
  });

  it('keeps the business change under 50 hand-written lines', () => {
    const added = readFileSync(PATCH, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('+') && !line.startsWith('+++'));
    expect(added.length).toBeLessThan(50);
  });

  /** tsc over the whole clone, eslint over what the generator and the forker write, the service's tests. */
  const checks = (label: string): string => {
    timed(`typecheck ${label}`, () => run(clone, 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']));
    timed(`lint ${label}`, () =>
      run(clone, 'npx', [
        'eslint',
        '--max-warnings=0',
        'apps/shipping-service',
        'libs/contracts/src',
        'tools/stack',
      ]),
    );
    return timed(`unit tests ${label}`, () => run(clone, 'npx', ['vitest', 'run', 'apps/shipping-service']));
  };

  it('type-checks, lints and passes its own tests as generated', () => {
    expect(checks('as generated')).toMatch(/Tests\s+1 passed/);
  }, 240_000);

  it("with the forker's change: type-checks, lints, passes its tests; the contracts gate accepts the evolved event", () => {
    timed('business change', () => run(clone, 'git', ['apply', PATCH]));
    timed('build again', () => run(clone, 'bash', ['scripts/build.sh']));
    expect(checks('changed')).toMatch(/Tests\s+2 passed/);
    expect(run(clone, 'npm', ['run', '--silent', 'contracts:snapshot'])).toContain(
      'shipment.scheduled v1: compatible change',
    );
  }, 240_000);

  it('schedules exactly one shipment per confirmed order, redelivered or not, and dead-letters a poison record', async () => {
    database = await createTestDatabase('fork_shipping');
    run(clone, 'node', ['scripts/db/migrate.mjs', 'deploy', '--service', 'shipping', '--url', database.url]);
    const port = await freePort();
    service = startNode(join(clone, 'dist/apps/shipping-service/src/main.js'), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_TOPIC_PARTITIONS: '3',
      KAFKA_CONSUMER_GROUP: group,
      LOG_FORMAT: 'json',
      OTEL_TRACES_EXPORTER: 'none',
    });
    const running = service;
    await eventually(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok || undefined, {
      timeoutMs: 60_000,
      what: `shipping-service ready\n${running.output().slice(-3000)}`,
    });

    // The saga from the clone, on the same topics: real orders, confirmed by payment and stock.
    saga = await Promise.all(
      SAGA.map((name) => startService(name, { prefix, label: `fork_${name}`, root: clone })),
    );
    const orderUrl = saga[0]!.baseUrl;
    const orderIds: string[] = [];
    for (let n = 0; n < ORDERS; n++) {
      const body = {
        customerId: 'c-fork',
        customerEmail: 'fork@example.test',
        items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
      };
      const placed = await httpJson<{ orderId: string }>('POST', `${orderUrl}/orders`, body);
      expect(placed.status).toBe(202);
      orderIds.push(placed.body.orderId);
    }
    for (const orderId of orderIds) {
      await eventually(
        async () => {
          const { body } = await httpJson<{ status: string }>('GET', `${orderUrl}/orders/${orderId}`);
          return body.status === 'CONFIRMED' ? true : undefined;
        },
        { timeoutMs: 60_000, what: `order ${orderId} confirmed` },
      );
    }
    const topic = prefix + Topics.orders;
    const confirmations = await eventually(
      async () => {
        const records = (await readTopic(kafka, topic)).filter(
          (record) => headerValue(record.headers, 'ce_type') === 'order.confirmed',
        );
        return records.length === ORDERS ? records : undefined;
      },
      { what: `${ORDERS} order.confirmed records on ${topic}` },
    );
    await caughtUp(admin, group, [topic]);
    // Redelivery: every order.confirmed once more, unchanged (same ce_id), as after a lost commit.
    for (const record of confirmations) await reproduce(kafka, topic, record);
    // Poison: an order.confirmed that breaks its contract.
    const poisonKey = randomUUID();
    await produceEvent(kafka, {
      topic,
      key: poisonKey,
      type: 'order.confirmed',
      payload: { orderId: 'not-a-uuid' },
      correlationId: poisonKey,
    });
    await caughtUp(admin, group, [topic]);

    // Everything processed (the duplicates skipped by the inbox) and the outbox relayed: nothing
    // more can reach `shipments`, so what is there now is the final count.
    const db = database;
    await eventually(
      async () =>
        (await db.withClient((c) => c.query('SELECT 1 FROM outbox LIMIT 1'))).rowCount === 0 || undefined,
      { timeoutMs: 30_000, what: 'the outbox relayed' },
    );
    const shipments = await readTopic(kafka, `${prefix}shipments`);
    const scheduled = shipments.map(
      (record) => JSON.parse(record.value!.toString()) as Record<string, unknown>,
    );
    expect(scheduled.map((s) => s.orderId).sort()).toEqual([...orderIds].sort());
    // The business change: a ship-by date, two working days (2 to 4 calendar days) after confirmation.
    for (const shipment of scheduled) {
      const days =
        (Date.parse(String(shipment.shipBy)) - Date.parse(String(shipment.scheduledAt))) / 86_400_000;
      expect(days).toBeGreaterThan(1.9);
      expect(days).toBeLessThan(4.1);
    }

    const letters = await eventually(
      async () => {
        const records = await readTopic(kafka, `${prefix}shipping.dead-letter`);
        return records.length > 0 ? records : undefined;
      },
      { timeoutMs: 30_000, what: 'a dead letter on shipping.dead-letter' },
    );
    expect(letters.map((letter) => letter.key?.toString())).toEqual([poisonKey]);
    expect(headerValue(letters[0]!.headers, DeadLetterHeaders.errorClass)).toBe('fatal');
  }, 240_000);
});
