import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Partitioners, type Kafka, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterTopic, Topics } from '@pipeline/contracts';
import { startConsole, TOKEN, type ConsoleUnderTest } from '../console/console.harness';
import {
  createTestTopics,
  KAFKA_BROKERS,
  kcatProducerArgs,
  readTopic,
  testKafka,
  uniqueName,
} from '../support/kafka';
import { REPO_ROOT, runCommand, type CommandRun } from '../support/processes';

// A payment-service dead-letter topic as a crash and other clients leave it: the same original
// dead-lettered twice by one group (a crash between the dead letter and the offset commit), the
// same original dead-lettered by another group, and records written by kcat (librdkafka, a client
// nobody here wrote) with headers of every shape, foreign records without original_* headers,
// and the letter of a batch that could not be decoded (no key, no value, diagnostics only).
// `npm run dlt` and the console must show each dead letter once and replay it once.

const GROUP = 'payment-service';
/** 1,000 headers on one record, besides the odd ones. */
const MANY = 1_000;

const run = (command: string, args: readonly string[], input = ''): Promise<CommandRun> =>
  runCommand(command, args, { env: { KAFKA_BROKERS: KAFKA_BROKERS.join(',') }, input });

/**
 * One kcat run: every line of `lines` is `key|value` (an empty key or value is NULL, `-Z`), and
 * every record gets the same headers. `-H name` without `=` writes a null value. `binary` headers
 * carry bytes that are not UTF-8, which Node cannot put in an argument: bash's printf writes them.
 */
async function kcat(
  topic: string,
  partition: number,
  headers: readonly string[],
  lines: readonly string[],
  binary: Readonly<Record<string, string>> = {},
): Promise<void> {
  const bytes = Object.entries(binary).map(([name, escaped]) => `-H "${name}=$(printf '${escaped}')" `);
  // Headers go out in the order given: the binary ones first.
  const script = `exec kcat ${bytes.join('')}"$@"`;
  const args = [...kcatProducerArgs(topic, partition), '-Z', '-K', '|'];
  const result = await run(
    'bash',
    ['-c', script, 'kcat', ...args, ...headers.flatMap((h) => ['-H', h])],
    [...lines.map((line) => `${line}\n`)].join(''),
  );
  if (result.code !== 0) throw new Error(`kcat exited ${result.code}: ${result.stderr}`);
}

/** A consumer's diagnostic headers of a dead letter. */
const diagnostics = (
  originalTopic: string,
  offset: number,
  failedAt: string,
  group = GROUP,
): Record<string, string> => ({
  original_topic: originalTopic,
  original_partition: '0',
  original_offset: String(offset),
  error_class: 'fatal',
  attempts: '1',
  failed_at: failedAt,
  consumer_group: group,
});

/** Headers as kcat's `-H` takes them. */
const kcatHeaders = (headers: Record<string, string>): string[] =>
  Object.entries(headers).map(([name, value]) => `${name}=${value}`);

async function endOffset(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

const header = (message: KafkaMessage, name: string) => message.headers?.[name];
const replayedFrom = (message: KafkaMessage) => String(header(message, 'replayed_from'));

describe('duplicate dead letters and headers of every shape (real Kafka, kcat)', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('dlt-dup')}.`;
  const dlt = prefix + deadLetterTopic('payment');
  const orders = prefix + Topics.orders;
  let deleteTopics: () => Promise<void>;

  beforeAll(async () => {
    if (!existsSync(resolve(REPO_ROOT, 'dist/tools/dlt.js')))
      throw new Error('dist/tools/dlt.js is missing: build first (bash scripts/build.sh)');
    ({ deleteTopics } = await createTestTopics(kafka, [{ name: dlt, partitions: 2 }, { name: orders }]));

    // kafkajs, as the services write letters: A twice by payment-service, once by analytics-service; B once.
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const letter = (partition: number, id: string, offset: number, failedAt: string, group = GROUP) => ({
      partition,
      key: `order-${id}`,
      value: JSON.stringify({ orderId: id }),
      headers: {
        ce_id: `event-${id}`,
        ce_type: 'order.placed',
        error: `failure of ${id}`,
        ...diagnostics(orders, offset, failedAt, group),
      },
    });
    await producer.send({
      topic: dlt,
      acks: -1,
      messages: [
        letter(0, 'a', 17, '2026-12-01T10:00:00.000Z'),
        letter(0, 'b', 18, '2026-12-01T10:00:00.100Z'),
        letter(0, 'a', 17, '2026-12-01T10:00:09.000Z'),
        letter(1, 'a', 17, '2026-12-01T10:00:00.500Z', 'analytics-service'),
      ],
    });
    await producer.disconnect();

    // kcat: the odd record O, twice (the second copy dead-lettered 5 s later).
    const odd = (failedAt: string) => [
      'ce_id=event-odd',
      'ce_type=order.placed',
      'error=line one\nline two',
      ...kcatHeaders(diagnostics(orders, 30, failedAt)),
      'x-null',
      'x-empty=',
      'x-rep=1',
      'x-rep=2',
      'x-rep',
      ...Array.from({ length: MANY }, (_, n) => `h-${n}=${n}`),
    ];
    for (const failedAt of ['2026-12-01T10:01:00.000Z', '2026-12-01T10:01:05.000Z'])
      await kcat(dlt, 1, odd(failedAt), ['odd-key|{"orderId":"odd"}'], { 'x-bin': '\\xff\\xfe' });
    // Two foreign records alike: no key, no value, a null header. Never merged.
    await kcat(dlt, 0, ['x-foreign'], ['|', '|']);
    // The letter of a batch that could not be decoded, twice, on both partitions (it has no key).
    for (const [partition, failedAt] of [
      [0, '2026-12-01T10:02:00.000Z'],
      [1, '2026-12-01T10:02:30.000Z'],
    ] as const)
      await kcat(
        dlt,
        partition,
        [
          ...kcatHeaders(diagnostics(orders, 40, failedAt)),
          'original_last_offset=45',
          'error=KafkaJSNotImplemented: ZSTD compression not implemented',
          'error_code=UndecodableBatch',
        ],
        ['|'],
      );
    expect(await endOffset(kafka, dlt)).toBe(10);
  });

  afterAll(async () => {
    await deleteTopics?.();
  });

  const dlt$ = (...args: string[]) =>
    run(process.execPath, [resolve(REPO_ROOT, 'dist/tools/dlt.js'), ...args]);

  /** What the orders topic received since `from` (one partition). */
  async function replayedSince(from: number): Promise<KafkaMessage[]> {
    return (await readTopic(kafka, orders)).filter((message) => Number(message.offset) >= from);
  }

  it('dlt list shows each dead letter once, with how many copies the topic holds', async () => {
    const json = await dlt$('list', '--topic', dlt, '--json');
    expect(json.code, json.stderr).toBe(0);
    const { summary, records } = JSON.parse(json.stdout) as {
      summary: { total: number; records: number; duplicateCopies: number };
      records: {
        partition: number;
        offset: string;
        eventId?: string;
        consumerGroup?: string;
        copies: number;
        otherCopies: string[];
        key: string | null;
      }[];
    };
    expect(summary).toMatchObject({ total: 7, records: 10, duplicateCopies: 3 });
    const rows = records.map((r) => [r.eventId ?? null, r.consumerGroup ?? null, r.copies, r.otherCopies]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['event-a', GROUP, 2, ['0/2']],
        ['event-a', 'analytics-service', 1, []],
        ['event-b', GROUP, 1, []],
        ['event-odd', GROUP, 2, ['1/2']],
        [null, null, 1, []],
        [null, GROUP, 2, ['1/3']],
      ]),
    );
    expect(rows.filter(([id, group]) => id === null && group === null)).toHaveLength(2);
    expect(records.find((r) => r.eventId === 'event-a' && r.consumerGroup === GROUP)).toMatchObject({
      partition: 0,
      offset: '0',
    });

    const text = await dlt$('list', '--topic', dlt);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`${dlt}: 7 dead-lettered records (10 records: 3 are later copies`);
    expect(text.stdout).toMatch(/^ {2}0\/0 .*\/0\/17: also at 0\/2$/m);
    expect(text.stdout).toMatch(/^ {2}0\/5 .*\/0\/40\.\.45: also at 1\/3$/m);
    // The odd record's two-line error is one line of the table.
    expect(text.stdout).toMatch(/^1\/1\s+event-odd\s.*line one line two$/m);
  });

  it('dlt replay sends each dead letter once, headers as written, and skips what kept nothing', async () => {
    const from = await endOffset(kafka, orders);
    const { code, stdout, stderr } = await dlt$('replay', '--topic', dlt);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('10 records in the snapshot, 10 selected');
    expect(stdout).toMatch(
      new RegExp(
        `^skipped 0/5 \\(ce_id -\\): UndecodableBatch: the consumer could not decode the record batch at ${orders}/0/40\\.\\.45,`,
        'm',
      ),
    );
    expect(stdout.match(/^skipped .*no original_topic header$/gm)).toHaveLength(2);
    expect(stdout.match(/^not sent again /gm)).toHaveLength(3);
    expect(stdout).toMatch(
      new RegExp(`^not sent again 0/2 \\(ce_id event-a\\): a later copy of ${dlt}/0/0`, 'm'),
    );
    expect(stdout).toMatch(/^replayed 4 records$/m);

    const replayed = await replayedSince(from);
    expect(replayed.map(replayedFrom).sort()).toEqual(
      [`${dlt}/0/0`, `${dlt}/0/1`, `${dlt}/1/0`, `${dlt}/1/1`].sort(),
    );
    const odd = replayed.find((message) => replayedFrom(message) === `${dlt}/1/1`)!;
    expect(odd.key?.toString()).toBe('odd-key');
    expect(odd.value?.toString()).toBe('{"orderId":"odd"}');
    // Every header as it came: null and empty values, repeats, bytes that are not UTF-8.
    expect(header(odd, 'x-null')).toBeNull();
    expect(header(odd, 'x-empty')).toEqual(Buffer.alloc(0));
    expect(header(odd, 'x-rep')).toEqual([Buffer.from('1'), Buffer.from('2'), null]);
    expect(header(odd, 'x-bin')).toEqual(Buffer.from([0xff, 0xfe]));
    expect(header(odd, `h-${MANY - 1}`)).toEqual(Buffer.from(String(MANY - 1)));
    expect(header(odd, 'original_offset')).toBeUndefined();
    expect(Object.keys(odd.headers ?? {})).toHaveLength(MANY + 7);
  });

  describe('the console', () => {
    let consoleApp: ConsoleUnderTest;

    beforeAll(async () => {
      consoleApp = await startConsole({ prefix });
    });
    afterAll(async () => {
      await consoleApp?.stop();
    });

    it('shows each dead letter once with its copies, and redrives each once', async () => {
      const page = await fetch(`${consoleApp.baseUrl}/dead-letters/payment`);
      const body = await page.text();
      expect(page.status, body.slice(0, 500)).toBe(200);
      const copies = [...body.matchAll(/data-copies="(\d+)"/g)].map((match) => Number(match[1]));
      expect(copies.sort()).toEqual([1, 1, 1, 1, 2, 2, 2]);
      expect(body).toContain('<span data-field="page-copies">3</span>');
      expect(body).toContain('(not UTF-8, 2 bytes) 0xfffe');
      expect(body).toContain('<code>x-null</code>: (null)');
      expect(body).toContain(`headers (${MANY + 16})`);

      const from = await endOffset(kafka, orders);
      const answer = await fetch(`${consoleApp.baseUrl}/dead-letters/payment/redrive`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'scope=all',
      });
      expect(answer.status).toBe(200);
      const result = (await answer.json()) as { replayed: number; skipped: unknown[]; duplicates: unknown[] };
      expect(result).toMatchObject({ replayed: 4 });
      expect(result.skipped).toHaveLength(3);
      expect(result.duplicates).toHaveLength(3);
      const replayed = await replayedSince(from);
      expect(new Set(replayed.map(replayedFrom)).size).toBe(4);
      expect(replayed).toHaveLength(4);
    });
  });
});
