/**
 * How fast inventory-service works through a backlog of payment.authorized events, and what it
 * costs: the reservation path in isolation, with all six partitions busy at once (the case where
 * hot SKU rows make concurrent chunk transactions collide). Checks the outcome too: one
 * reservation per order and stock moved exactly once.
 * Usage: node dist/tools/bench/inventory-catch-up.js [events]   (KAFKA_BROKERS, PG*)
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import {
  DEMO_STOCKED_SKUS,
  PaymentAuthorizedEvent,
  Topics,
  type PaymentAuthorizedPayload,
  encodeHeaders,
  metadataOf,
} from '@pipeline/contracts';
import { createKafka } from '@pipeline/messaging';
import { logLevel } from 'kafkajs';
import { readGroupLag, seededRandom } from '@pipeline/load';
import { cpuSeconds } from './proc-stats';
import {
  databaseName,
  databaseUrl,
  dropDatabases,
  migrate,
  recreateDatabases,
  RunningStack,
  withClient,
  type StackOptions,
} from './stack-under-test';
import { repoRoot, stackOptions } from './bench-environment';
import { runMain } from '../run-main';

function paymentEvent(random: () => number): { key: string; value: string; headers: Record<string, string> } {
  const orderId = randomUUID();
  const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
    sku: DEMO_STOCKED_SKUS[Math.floor(random() * DEMO_STOCKED_SKUS.length)]!,
    quantity: 1 + Math.floor(random() * 3),
    unitPrice: '1.00',
  }));
  const payload: PaymentAuthorizedPayload = {
    orderId,
    paymentId: randomUUID(),
    customerId: 'catch-up',
    amount: items.reduce((sum, item) => sum + item.quantity, 0).toFixed(2),
    currency: 'EUR',
    items,
    authorizedAt: new Date().toISOString(),
  };
  const metadata = metadataOf(
    {
      topic: Topics.payments,
      key: orderId,
      type: PaymentAuthorizedEvent.type,
      payload,
      correlationId: orderId,
    },
    'payment-service',
  );
  return { key: orderId, value: JSON.stringify(payload), headers: encodeHeaders(metadata) };
}

async function main(events: number): Promise<void> {
  const runId = `catchup${Date.now().toString(36)}`;
  const logDir = `${repoRoot}/reports/${runId}`;
  await mkdir(logDir, { recursive: true });
  // The bench's stack, on a prefix and databases of this run, with no SMTP server and quiet logs.
  const options: StackOptions = {
    ...stackOptions(runId, logDir),
    dbPrefix: `bench_${runId}_`,
    topicPrefix: `${runId}.`,
    groupPrefix: `${runId}.`,
    smtpUrl: 'smtp://127.0.0.1:1',
    env: { LOG_LEVEL: 'warn' },
  };
  const db = databaseName(options, 'inventory');
  await recreateDatabases(options, [db]);
  await migrate(options, 'inventory', db);
  const kafka = createKafka(
    { brokers: options.kafkaBrokers.split(','), clientId: 'catch-up' },
    { logLevel: logLevel.ERROR },
  );
  const admin = kafka.admin();
  const producer = kafka.producer({ idempotent: true });
  await Promise.all([admin.connect(), producer.connect()]);
  const stack = new RunningStack(options);
  const topic = options.topicPrefix + Topics.payments;
  const group = `${options.groupPrefix}inventory-service`;
  try {
    await stack.start(['inventory']);
    const pid = stack.pids().inventory!;
    const random = seededRandom(42);
    const stats = async () =>
      withClient(
        options,
        'postgres',
        async (c) =>
          (
            await c.query<{ xact_commit: string; xact_rollback: string; deadlocks: string }>(
              'SELECT xact_commit, xact_rollback, deadlocks FROM pg_stat_database WHERE datname = $1',
              [db],
            )
          ).rows[0]!,
      );
    const before = await stats();
    const cpu0 = cpuSeconds(pid) ?? 0;
    const t0 = performance.now();
    for (let sent = 0; sent < events; sent += 1000)
      await producer.send({
        topic,
        acks: -1,
        messages: Array.from({ length: Math.min(1000, events - sent) }, () => paymentEvent(random)),
      });
    // Caught up: lag 0 with offsets committed. Bounded: a crashed or stuck service fails the run.
    const deadline = Date.now() + 600_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`inventory-service did not catch up within 600 s`);
      const inventory = stack.processes.get('inventory');
      if (inventory?.exitCode !== null && inventory?.exitCode !== undefined)
        throw new Error(`inventory-service exited (${inventory.exitCode}) before catching up`);
      await new Promise((r) => setTimeout(r, 250));
      const lag = await readGroupLag(admin, group, [topic]).catch(() => -1);
      const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] }).catch(() => []);
      const anyCommitted = committed.some((t) => t.partitions.some((p) => Number(p.offset) > 0));
      if (lag === 0 && anyCommitted) break;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = (cpuSeconds(pid) ?? 0) - cpu0;
    await new Promise((r) => setTimeout(r, 1500)); // pg_stat_database is flushed with a delay
    const after = await stats();
    const check = await withClient(
      options,
      db,
      async (c) =>
        (
          await c.query<{ reservations: string; orders: string; negative: string }>(
            `SELECT (SELECT count(*) FROM reservations) AS reservations,
                  (SELECT count(DISTINCT order_id) FROM reservations) AS orders,
                  (SELECT count(*) FROM stock WHERE available < 0 OR reserved < 0) AS negative`,
          )
        ).rows[0]!,
    );
    const delta = (k: 'xact_commit' | 'xact_rollback' | 'deadlocks'): number =>
      Number(after[k]) - Number(before[k]);
    process.stdout.write(
      `${JSON.stringify(
        {
          events,
          seconds: Math.round(seconds * 10) / 10,
          eventsPerSecond: Math.round(events / seconds),
          cpuMsPerEvent: Math.round((cpu * 1000 * 100) / events) / 100,
          commits: delta('xact_commit'),
          rollbacks: delta('xact_rollback'),
          deadlocks: delta('deadlocks'),
          reservations: Number(check.reservations),
          distinctOrders: Number(check.orders),
          negativeStockRows: Number(check.negative),
          database: databaseUrl(options, db),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await stack.stop();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(options.topicPrefix));
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await Promise.all([admin.disconnect(), producer.disconnect()]);
    await dropDatabases(options, [db]).catch(() => undefined);
  }
}

runMain('catch-up', () => main(Number(process.argv[2] ?? 6000)));
