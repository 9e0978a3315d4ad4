import { randomUUID } from 'node:crypto';

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Partitioners, type Kafka, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterHeaders, EventHeaders, ReplayHeaders } from '@pipeline/contracts';
import {
  DeadLetterTopicNotFoundError,
  filterDeadLetters,
  planReplay,
  readDeadLetters,
  sendReplay,
  summariseDeadLetters,
  type DeadLetterRecord,
} from '@pipeline/dead-letters';
import { createTestTopics, KAFKA_BROKERS, readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually, REPO_ROOT, runCommand, type CommandRun } from '../support/processes';

/** A hand-made dead letter: the original record plus what the consumer side adds. */
interface Letter {
  readonly partition: number;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, Buffer>>;
  readonly eventId: string;
  readonly originalTopic: string | undefined;
  /** Where the original sat: each letter its own, or two would be copies of one dead letter. */
  readonly originalOffset: string;
  readonly error: string;
  readonly errorClass: 'retriable' | 'fatal';
  readonly failedAt: string;
}

interface Fixture {
  readonly dlt: string;
  readonly orders: string;
  readonly payments: string;
  /** a, b on partition 0 (offsets 0, 1); c, d on partition 1; d has no `original_topic`. */
  readonly letters: Readonly<Record<'a' | 'b' | 'c' | 'd', Letter>>;
  readonly cleanup: () => Promise<void>;
}

const letter = (
  partition: number,
  type: string,
  originalTopic: string | undefined,
  originalOffset: string,
  error: string,
  errorClass: Letter['errorClass'],
  failedAt: string,
): Letter => {
  const eventId = randomUUID();
  const key = `order-${randomUUID()}`;
  const headers: Record<string, Buffer> = {
    [EventHeaders.specVersion]: Buffer.from('1.0'),
    [EventHeaders.id]: Buffer.from(eventId),
    [EventHeaders.type]: Buffer.from(type),
    [EventHeaders.source]: Buffer.from('order-service'),
    [EventHeaders.time]: Buffer.from('2026-01-01T09:00:00.000Z'),
    [EventHeaders.contentType]: Buffer.from('application/json'),
    [EventHeaders.correlationId]: Buffer.from(key),
    [EventHeaders.causationId]: Buffer.from(randomUUID()),
    [EventHeaders.traceparent]: Buffer.from('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
    // Not UTF-8: replay must hand back bytes, not decoded strings.
    'x-binary': Buffer.from([0xff, 0x00, 0xfe]),
  };
  const value = Buffer.from(JSON.stringify({ orderId: key, amount: 42 }));
  return {
    partition,
    key,
    value,
    headers,
    eventId,
    originalTopic,
    originalOffset,
    error,
    errorClass,
    failedAt,
  };
};

const diagnostics = (l: Letter, attempts: number): Record<string, string> => ({
  ...(l.originalTopic === undefined ? {} : { [DeadLetterHeaders.originalTopic]: l.originalTopic }),
  [DeadLetterHeaders.originalPartition]: '0',
  [DeadLetterHeaders.originalOffset]: l.originalOffset,
  [DeadLetterHeaders.error]: l.error,
  [DeadLetterHeaders.errorClass]: l.errorClass,
  [DeadLetterHeaders.attempts]: String(attempts),
  [DeadLetterHeaders.failedAt]: l.failedAt,
  [DeadLetterHeaders.consumerGroup]: 'payment-service',
});

async function createFixture(kafka: Kafka): Promise<Fixture> {
  const dlt = uniqueName('dlt');
  const orders = uniqueName('dlt-orders');
  const payments = uniqueName('dlt-payments');
  const topics = await createTestTopics(kafka, [
    { name: dlt, partitions: 2 },
    { name: orders },
    { name: payments },
  ]);
  const letters = {
    a: letter(
      0,
      'order.placed',
      orders,
      '11',
      'payment gateway timeout',
      'retriable',
      '2026-01-01T10:00:00.000Z',
    ),
    b: letter(
      0,
      'order.placed',
      orders,
      '12',
      '  payment gateway timeout\n',
      'retriable',
      '2026-01-01T11:00:00.000Z',
    ),
    c: letter(
      1,
      'payment.authorized',
      payments,
      '17',
      'schema violation: amount',
      'fatal',
      '2026-01-01T12:00:00.000Z',
    ),
    d: letter(
      1,
      'order.cancelled',
      undefined,
      '14',
      'value is not JSON',
      'fatal',
      '2026-01-01T13:00:00.000Z',
    ),
  };
  // Idempotent: a retried request (a fresh broker can be slow to answer) never duplicates a letter.
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  await producer.send({
    topic: dlt,
    acks: -1,
    messages: Object.values(letters).map((l) => ({
      partition: l.partition,
      key: l.key,
      value: l.value,
      headers: { ...l.headers, ...diagnostics(l, l.errorClass === 'fatal' ? 1 : 3) },
    })),
  });
  await producer.disconnect();
  return { dlt, orders, payments, letters, cleanup: topics.deleteTopics };
}

const positions = (records: readonly DeadLetterRecord[]) => records.map((r) => `${r.partition}/${r.offset}`);
const countsOf = (counts: readonly { value: string; count: number }[]) =>
  Object.fromEntries(counts.map(({ value, count }) => [value, count]));

async function endOffset(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** The record as replayed: exactly the original key, value and headers, plus `replayed_from`. */
function expectReplayed(message: KafkaMessage, l: Letter, from: string): void {
  expect(message.key?.toString()).toBe(l.key);
  expect(message.value?.equals(l.value)).toBe(true);
  expect(Object.keys(message.headers ?? {}).sort()).toEqual(
    [...Object.keys(l.headers), ReplayHeaders.replayedFrom].sort(),
  );
  for (const [name, bytes] of Object.entries(l.headers)) {
    expect(message.headers?.[name], name).toEqual(bytes);
  }
  expect(message.headers?.[ReplayHeaders.replayedFrom]?.toString()).toBe(from);
}

describe('dead-letter topics: snapshot, summary, replay (real Kafka)', () => {
  const kafka = testKafka();
  let shared: Fixture;

  beforeAll(async () => {
    shared = await createFixture(kafka);
  });
  afterAll(async () => {
    await shared?.cleanup();
  });

  it('reads every record up to the end offsets, summarises them and leaves no consumer group behind', async () => {
    const admin = kafka.admin();
    await admin.connect();
    const groupsBefore = new Set((await admin.listGroups()).groups.map((g) => g.groupId));

    const progress: [number, number][] = [];
    const snapshot = await readDeadLetters(kafka, {
      topic: shared.dlt,
      onProgress: (read, expected) => progress.push([read, expected]),
      progressIntervalMs: 5,
    });

    const groupsAfter = (await admin.listGroups()).groups.map((g) => g.groupId);
    await admin.disconnect();
    expect(groupsAfter.filter((id) => id.startsWith('dlt-reader-') && !groupsBefore.has(id))).toEqual([]);
    expect(positions(snapshot.records)).toEqual(['0/0', '0/1', '1/0', '1/1']);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every(([read, expected]) => read <= 4 && expected === 4)).toBe(true);
    const { a, c, d } = shared.letters;
    expect(snapshot.records.map((r) => r.eventId)).toEqual([
      a.eventId,
      shared.letters.b.eventId,
      c.eventId,
      d.eventId,
    ]);
    expect(snapshot.records[2]).toMatchObject({
      originalTopic: shared.payments,
      originalPartition: 0,
      originalOffset: '17',
      errorClass: 'fatal',
      attempts: 1,
      failedAt: c.failedAt,
      consumerGroup: 'payment-service',
    });

    const summary = summariseDeadLetters(snapshot.records);
    expect(summary.total).toBe(4);
    expect(summary.byError[0]).toEqual({ value: 'payment gateway timeout', count: 2 });
    expect(countsOf(summary.byError)).toEqual({
      'payment gateway timeout': 2,
      'schema violation: amount': 1,
      'value is not JSON': 1,
    });
    expect(countsOf(summary.byErrorClass)).toEqual({ retriable: 2, fatal: 2 });
    expect(countsOf(summary.byOriginalTopic)).toEqual({
      [shared.orders]: 2,
      [shared.payments]: 1,
      '(missing)': 1,
    });
    expect(countsOf(summary.byEventType)).toEqual({
      'order.placed': 2,
      'payment.authorized': 1,
      'order.cancelled': 1,
    });
    expect(summary.oldestFailedAt).toBe(a.failedAt);
    expect(summary.newestFailedAt).toBe(d.failedAt);
  });

  it('reads an empty topic without waiting and refuses a topic that does not exist', async () => {
    expect((await readDeadLetters(kafka, { topic: shared.orders })).records).toEqual([]);
    await expect(readDeadLetters(kafka, { topic: uniqueName('missing') })).rejects.toBeInstanceOf(
      DeadLetterTopicNotFoundError,
    );
  });

  it('ends at a partition whose last offsets are transaction markers and aborted records', async () => {
    const topic = uniqueName('dlt-tx');
    const topics = await createTestTopics(kafka, [{ name: topic }]);
    const producer = kafka.producer({
      transactionalId: uniqueName('tx'),
      idempotent: true,
      maxInFlightRequests: 1,
      retry: { retries: Number.MAX_SAFE_INTEGER },
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    try {
      const committed = await producer.transaction();
      await committed.send({ topic, messages: [{ key: 'k', value: 'kept' }] });
      await committed.commit();
      const aborted = await producer.transaction();
      await aborted.send({
        topic,
        messages: [
          { key: 'k', value: 'gone' },
          { key: 'k', value: 'gone' },
        ],
      });
      await aborted.abort();
      // kept + commit marker + 2 aborted records + abort marker; the abort marker can land a
      // moment after abort() returns.
      await eventually(
        async () => ((await topics.admin.fetchTopicOffsets(topic))[0]?.high === '5' ? true : undefined),
        { timeoutMs: 15_000, what: 'the abort marker' },
      );

      const { records, partitions } = await readDeadLetters(kafka, { topic, stallTimeoutMs: 15_000 });

      expect(partitions[0]?.high).toBe('5');
      expect(records.map((r) => r.value?.toString())).toEqual(['kept']);
    } finally {
      await producer.disconnect();
      await topics.deleteTopics();
    }
  });

  it('selects by event id, original topic and failed_at window', async () => {
    const { records } = await readDeadLetters(kafka, { topic: shared.dlt });
    const { a, b, c, d } = shared.letters;
    const ids = (filtered: readonly DeadLetterRecord[]) => filtered.map((r) => r.eventId);
    expect(ids(filterDeadLetters(records, { eventIds: [c.eventId, a.eventId] }))).toEqual([
      a.eventId,
      c.eventId,
    ]);
    expect(ids(filterDeadLetters(records, { originalTopic: shared.orders }))).toEqual([a.eventId, b.eventId]);
    const window = { since: new Date('2026-01-01T10:30:00Z'), until: new Date(c.failedAt) };
    expect(ids(filterDeadLetters(records, window))).toEqual([b.eventId]);
    expect(ids(filterDeadLetters(records, { since: new Date(c.failedAt) }))).toEqual([c.eventId, d.eventId]);
    expect(
      ids(filterDeadLetters(records, { originalTopic: shared.payments, until: new Date(c.failedAt) })),
    ).toEqual([]);
  });

  it('replays every record onto its original topic as first published, and skips the one without original_topic', async () => {
    const fixture = await createFixture(kafka);
    try {
      const { records } = await readDeadLetters(kafka, { topic: fixture.dlt });
      const plan = planReplay(records);
      expect(plan.skipped.map((s) => [s.source.eventId, s.reason])).toEqual([
        [fixture.letters.d.eventId, 'no original_topic header'],
      ]);

      // One batch per record: the split path, which must keep the dead-letter order.
      const result = await sendReplay(kafka, plan, { maxBatchBytes: 1 });

      expect(result.replayed).toBe(3);
      expect(countsOf(result.byTopic)).toEqual({ [fixture.orders]: 2, [fixture.payments]: 1 });
      const orders = await readTopic(kafka, fixture.orders);
      expect(orders).toHaveLength(2);
      expectReplayed(orders[0]!, fixture.letters.a, `${fixture.dlt}/0/0`);
      expectReplayed(orders[1]!, fixture.letters.b, `${fixture.dlt}/0/1`);
      const payments = await readTopic(kafka, fixture.payments);
      expect(payments).toHaveLength(1);
      expectReplayed(payments[0]!, fixture.letters.c, `${fixture.dlt}/1/0`);
    } finally {
      await fixture.cleanup();
    }
  });

  it('replays only what a filter selects', async () => {
    const fixture = await createFixture(kafka);
    try {
      const { records } = await readDeadLetters(kafka, { topic: fixture.dlt });
      const selected = filterDeadLetters(records, {
        originalTopic: fixture.orders,
        since: new Date('2026-01-01T10:30Z'),
      });

      expect((await sendReplay(kafka, planReplay(selected))).replayed).toBe(1);

      const orders = await readTopic(kafka, fixture.orders);
      expect(orders).toHaveLength(1);
      expectReplayed(orders[0]!, fixture.letters.b, `${fixture.dlt}/0/1`);
      expect(await endOffset(kafka, fixture.payments)).toBe(0);
    } finally {
      await fixture.cleanup();
    }
  });

  describe('the dlt command', () => {
    const cli = resolve(REPO_ROOT, 'dist/tools/dlt.js');

    const dlt = (...args: string[]): Promise<CommandRun> =>
      runCommand(process.execPath, [cli, ...args], { env: { KAFKA_BROKERS: KAFKA_BROKERS.join(',') } });

    beforeAll(() => {
      if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (bash scripts/build.sh)`);
    });

    it('lists the summary and the records', async () => {
      const { code, stdout, stderr } = await dlt('list', '--topic', shared.dlt);
      expect(code, stderr).toBe(0);
      expect(stderr).not.toMatch(/dlt:|kafkajs|Warning/);
      expect(stdout).toContain(`${shared.dlt}: 4 dead-lettered records`);
      expect(stdout).toContain(`oldest ${shared.letters.a.failedAt}, newest ${shared.letters.d.failedAt}`);
      expect(stdout).toMatch(/^\s+2 {2}payment gateway timeout$/m);
      expect(stdout).toMatch(
        /^PARTITION\/OFFSET\s+CE_ID\s+CE_TYPE\s+ORIGINAL\s+COPIES\s+CLASS\s+ATTEMPTS\s+FAILED_AT\s+ERROR$/m,
      );
      const c = shared.letters.c;
      expect(stdout).toMatch(
        new RegExp(
          `^1/0\\s+${c.eventId}\\s+payment\\.authorized\\s+${shared.payments}/0/17\\s+1\\s+fatal\\s+1\\s+`,
          'm',
        ),
      );
    });

    it('lists as JSON', async () => {
      const { code, stdout } = await dlt('list', '--topic', shared.dlt, '--json');
      expect(code).toBe(0);
      const parsed = JSON.parse(stdout) as { summary: { total: number }; records: { eventId: string }[] };
      expect(parsed.summary.total).toBe(4);
      expect(parsed.records.map((r) => r.eventId)).toContain(shared.letters.d.eventId);
    });

    it('--dry-run prints what it would replay and produces nothing', async () => {
      const { code, stdout } = await dlt('replay', '--topic', shared.dlt, '--dry-run');
      expect(code).toBe(0);
      expect(stdout).toContain('4 records in the snapshot, 4 selected');
      expect(stdout).toContain(`skipped 1/1 (ce_id ${shared.letters.d.eventId}): no original_topic header`);
      expect(stdout).toContain('dry run: would replay 3 records');
      expect(await endOffset(kafka, shared.orders)).toBe(0);
      expect(await endOffset(kafka, shared.payments)).toBe(0);
    });

    it('replays the records selected by --event-id', async () => {
      const fixture = await createFixture(kafka);
      try {
        const { code, stdout } = await dlt(
          'replay',
          '--topic',
          fixture.dlt,
          '--event-id',
          fixture.letters.c.eventId,
        );
        expect(code).toBe(0);
        expect(stdout).toContain('4 records in the snapshot, 1 selected');
        expect(stdout).toMatch(new RegExp(`^replayed 1 record\\n\\s+1 {2}${fixture.payments}$`, 'm'));
        const payments = await readTopic(kafka, fixture.payments);
        expect(payments).toHaveLength(1);
        expectReplayed(payments[0]!, fixture.letters.c, `${fixture.dlt}/1/0`);
        expect(await endOffset(kafka, fixture.orders)).toBe(0);
      } finally {
        await fixture.cleanup();
      }
    });

    it('exits 1 when the dead-letter topic does not exist', async () => {
      const missing = uniqueName('missing');
      const { code, stdout, stderr } = await dlt('list', '--topic', missing);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain(`dlt: list failed: topic ${missing} does not exist`);
    });

    it.each([
      [
        ['list', '--service', 'shipping'],
        'dlt: unknown service "shipping" (expected one of order, payment, inventory, email, analytics)',
      ],
      [['purge', '--service', 'payment'], 'dlt: unknown command "purge" (list or replay)'],
      [['list', '--service', 'payment', '--colour'], "dlt: Unknown option '--colour'"],
      [
        ['replay', '--service', 'payment', '--since', 'yesterday'],
        'dlt: --since "yesterday" is not an ISO-8601',
      ],
      [['list', '--service', 'payment', '--dry-run'], 'dlt: --dry-run is not an option of list'],
    ])('exits 2 with one clear line and the usage for %j', async (args, message) => {
      const { code, stdout, stderr } = await dlt(...args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.split('\n')[0]).toContain(message);
      expect(stderr).toContain('Usage: dlt <command>');
    });
  });
});
