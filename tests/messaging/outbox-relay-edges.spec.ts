import { afterEach, describe, expect, it } from 'vitest';
import { DeadLetterHeaders, EventHeaders, headerValue } from '@pipeline/contracts';
import { recordBytes, writeToOutbox } from '@pipeline/messaging';
import { sqlOverPrisma } from '@pipeline/database';
import { OutboxRelay, type OutboxRelayOptions } from '@pipeline/outbox-relay';
import { PipelineMetrics } from '@pipeline/observability';
import type { KafkaMessage } from 'kafkajs';
import { createTestTopics, readTopic, testKafka, uniqueName } from '../support/kafka';
import { createMessagingTestDatabase, type MessagingTestDatabase } from '../support/messaging-database';
import { eventually } from '../support/processes';

/** Polls `check` until it holds (bounded: `eventually`). */
const until = (check: () => boolean | Promise<boolean>, what: string) =>
  eventually(async () => ((await check()) ? true : undefined), { timeoutMs: 30_000, what });

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
const TOPIC = 'things';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Bed {
  readonly db: MessagingTestDatabase;
  /** Published names: `<prefix>things` and the service's `<prefix>order.dead-letter`. */
  readonly topic: string;
  readonly deadLetters: string;
  relay(options?: Partial<OutboxRelayOptions>): OutboxRelay;
  write(events: readonly { key: string; seq: number; padBytes?: number }[]): Promise<void>;
  outboxRows(): Promise<number>;
}

async function bed(label: string, topicConfig: { name: string; value: string }[] = []): Promise<Bed> {
  const db = await createMessagingTestDatabase(label);
  cleanups.push(() => db.close());
  const topicPrefix = `${uniqueName(label)}.`;
  const topic = topicPrefix + TOPIC;
  const deadLetters = `${topicPrefix}order.dead-letter`;
  const topics = await createTestTopics(testKafka(), [
    { name: topic, configEntries: topicConfig },
    { name: deadLetters },
  ]);
  cleanups.push(() => topics.deleteTopics());
  return {
    db,
    topic,
    deadLetters,
    relay: (options = {}) => {
      const relay = new OutboxRelay({
        service: 'order',
        databaseUrl: db.url,
        kafka: testKafka(),
        logger: quiet,
        topicPrefix,
        ...options,
      });
      cleanups.push(() => relay.stop());
      return relay;
    },
    write: (events) =>
      db.prisma.$transaction(async (tx) => {
        const outgoing = events.map(({ key, seq, padBytes = 0 }) => ({
          topic: TOPIC,
          key,
          type: 'test.happened',
          payload: { key, seq, pad: 'x'.repeat(padBytes) },
          correlationId: key,
        }));
        await writeToOutbox(sqlOverPrisma(tx), outgoing, { source: 'order-service' });
      }),
    outboxRows: () =>
      db.withClient(async (client) => (await client.query('SELECT id FROM outbox')).rowCount ?? 0),
  };
}

/** `key:seq` of every record on a single-partition topic, in offset order. */
async function keyedSequences(topic: string): Promise<string[]> {
  const records = await readTopic(testKafka(), topic);
  records.sort((a, b) => Number(a.offset) - Number(b.offset));
  return records.map((record) => {
    const { key, seq } = JSON.parse(record.value?.toString() ?? 'null') as { key: string; seq: number };
    return `${key}:${seq}`;
  });
}

const header = (message: KafkaMessage, name: string) => headerValue(message.headers, name);

describe('OutboxRelay at its edges', () => {
  it('splits a batch heavier than maxBatchBytes into consecutive sends under it, in id order', async () => {
    const b = await bed('relay-bytes');
    const maxBatchBytes = 64 * 1024;
    const events = Array.from({ length: 24 }, (_, i) => ({
      key: i % 2 === 0 ? 'a' : 'b',
      seq: i + 1,
      padBytes: 10_000,
    }));
    await b.write(events);
    const sendBytes: number[] = [];
    const relay = b.relay({
      maxBatchBytes,
      beforeSend: (topicMessages) =>
        void sendBytes.push(
          topicMessages.flatMap((t) => t.messages).reduce((sum, message) => sum + recordBytes(message), 0),
        ),
    });
    await relay.start();
    await until(async () => (await b.outboxRows()) === 0 && relay.stats.published === 24, 'outbox drained');

    // One SELECT of 24 rows of about 10 KiB: more than 64 KiB, so several sends, none over it.
    expect(sendBytes.length).toBeGreaterThanOrEqual(4);
    expect(relay.stats.batches).toBe(sendBytes.length);
    for (const bytes of sendBytes) expect(bytes).toBeLessThanOrEqual(maxBatchBytes);
    expect(sendBytes.reduce((sum, bytes) => sum + bytes, 0)).toBeGreaterThan(maxBatchBytes);
    expect(await keyedSequences(b.topic)).toEqual(events.map((e) => `${e.key}:${e.seq}`));
  });

  it('dead-letters a row too large to ever send, deletes it, and publishes the rows behind it', async () => {
    const b = await bed('relay-oversize');
    await b.write([
      { key: 'k1', seq: 1 },
      { key: 'k1', seq: 2, padBytes: 1_572_864 },
      { key: 'k1', seq: 3 },
      { key: 'k2', seq: 1 },
    ]);
    const [oversize] = await b.db.withClient(
      async (client) =>
        (await client.query<{ event_id: string }>(`SELECT event_id FROM outbox WHERE payload->>'seq' = '2'`))
          .rows,
    );
    const counted = async () =>
      (await PipelineMetrics.eventsDeadLettered.get()).values.find(
        (value) => value.labels.stage === 'relay' && value.labels.topic === b.topic,
      )?.value ?? 0;
    const relay = b.relay();
    await relay.start();
    await until(async () => (await b.outboxRows()) === 0 && relay.stats.published === 3, 'outbox drained');

    expect(await keyedSequences(b.topic)).toEqual(['k1:1', 'k1:3', 'k2:1']);
    const letters = await readTopic(testKafka(), b.deadLetters);
    expect(letters).toHaveLength(1);
    const letter = letters[0]!;
    expect(letter.key?.toString()).toBe('k1');
    expect(header(letter, EventHeaders.id)).toBe(oversize?.event_id);
    expect(header(letter, EventHeaders.type)).toBe('test.happened');
    expect(header(letter, DeadLetterHeaders.originalTopic)).toBe(b.topic);
    expect(header(letter, DeadLetterHeaders.stage)).toBe('relay');
    expect(header(letter, DeadLetterHeaders.errorCode)).toBe('RecordTooLarge');
    expect(header(letter, DeadLetterHeaders.errorClass)).toBe('fatal');
    expect(header(letter, DeadLetterHeaders.error)).toMatch(/^RecordTooLarge: record of \d+ bytes/);
    expect(Number(header(letter, DeadLetterHeaders.recordBytes))).toBeGreaterThan(1_572_864);
    expect(header(letter, DeadLetterHeaders.limitBytes)).toBe(String(512 * 1024));
    // The letter would be as large as the original: it goes without the value, and says so.
    expect(letter.value).toBeNull();
    expect(header(letter, DeadLetterHeaders.valueOmitted)).toBe('true');
    expect(relay.stats.deadLettered).toBe(1);
    expect(await counted()).toBe(1);
  });

  it('dead-letters a row the broker refuses as too large, sending the others of its batch one by one', async () => {
    const b = await bed('relay-refused', [{ name: 'max.message.bytes', value: '16384' }]);
    await b.write([
      { key: 'k1', seq: 1 },
      { key: 'k1', seq: 2, padBytes: 30_000 },
      { key: 'k1', seq: 3 },
    ]);
    const relay = b.relay();
    await relay.start();
    await until(async () => (await b.outboxRows()) === 0 && relay.stats.deadLettered === 1, 'outbox drained');

    expect(await keyedSequences(b.topic)).toEqual(['k1:1', 'k1:3']);
    const [letter, ...more] = await readTopic(testKafka(), b.deadLetters);
    expect(more).toHaveLength(0);
    expect(header(letter!, DeadLetterHeaders.errorCode)).toBe('RecordTooLarge');
    expect(header(letter!, DeadLetterHeaders.error)).toMatch(/^RecordTooLarge: .*(too large|larger)/i);
    // Under the relay's own limit, so the letter keeps the value.
    expect(JSON.parse(letter!.value?.toString() ?? 'null')).toMatchObject({ key: 'k1', seq: 2 });
    expect(header(letter!, DeadLetterHeaders.valueOmitted)).toBeUndefined();
  });

  it('never publishes a deposed leader’s batch after its successor’s', async () => {
    const b = await bed('relay-fenced');
    await b.write([{ key: 'sku-1', seq: 1 }]);
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { opened, open };
    };
    const [resumeA, releaseSend] = [gate(), gate()];
    let lockDropped = false;
    let heldSends = 0;
    // A publishes sku-1:1, then its session loses the lock and lives on (a pooler that swapped its
    // backend, a hook that ran pg_advisory_unlock_all): A still believes it leads. A waits here,
    // in its report between batches, before the read that would prove the lock for its next send.
    const relayA = b.relay({
      onPublishedIntervalMs: 0,
      onPublished: async (_batch, sql) => {
        if (lockDropped) return;
        await sql.query('SELECT pg_advisory_unlock_all()');
        lockDropped = true;
        await resumeA.opened;
      },
      // Without the proof in the read, A would read sku-1:2 and send it after B's sku-1:3: held here.
      beforeSend: async () => {
        if (!lockDropped) return;
        heldSends += 1;
        await releaseSend.opened;
      },
    });
    // Opened before the relays stop (cleanups run last first), whatever the test got to.
    cleanups.push(() => {
      resumeA.open();
      releaseSend.open();
      return Promise.resolve();
    });
    await relayA.start();
    await until(() => lockDropped, 'A lost its lock');
    expect(relayA.isLeader()).toBe(true);

    // B takes the free lock and publishes what A left (A's DELETE rides with its next read).
    await b.write([{ key: 'sku-1', seq: 2 }]);
    const relayB = b.relay({ pollIntervalMs: 60_000 });
    await relayB.start();
    await until(() => relayB.isLeader() && relayB.stats.published === 2, 'B published sku-1:1 and 2');

    // A reads again while sku-1:2 is still in the outbox (B deletes it with its next read).
    resumeA.open();
    await until(() => relayA.stats.failures >= 1 || heldSends === 1, 'A tried its next read');
    await b.write([{ key: 'sku-1', seq: 3 }]);
    await until(() => relayB.stats.published === 3, 'B published sku-1:3');

    releaseSend.open();
    await until(() => relayA.stats.failures >= 1 || relayA.stats.published > 1, 'A failed its fence');
    // On a compacted topic the last record of a key wins: it is B's newest value.
    expect(await keyedSequences(b.topic)).toEqual(['sku-1:1', 'sku-1:1', 'sku-1:2', 'sku-1:3']);
    expect(heldSends).toBe(0);
    expect(relayA.stats.published).toBe(1);
    expect(relayA.isLeader()).toBe(false);
  });
});
