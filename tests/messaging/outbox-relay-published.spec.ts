// The relay's onPublished hook against the real broker: every event's reported partition and
// offset is where a consumer finds it, and a failing hook never holds the relay up.
import { afterEach, describe, expect, it } from 'vitest';
import { EventHeaders, headerValue, type OutgoingEvent } from '@pipeline/contracts';
import { writeToOutbox } from '@pipeline/messaging';
import { sqlOverPrisma } from '@pipeline/database';
import { OutboxRelay, type OutboxPublishedRecord, type OutboxRelayOptions } from '@pipeline/outbox-relay';
import { createTestTopics, readTopic, testKafka, uniqueName } from '../support/kafka';
import { createMessagingTestDatabase, type MessagingTestDatabase } from '../support/messaging-database';
import { eventually } from '../support/processes';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly db: MessagingTestDatabase;
  readonly prefix: string;
  readonly errors: string[];
  readonly warnings: string[];
  relay(onPublished: OutboxRelayOptions['onPublished']): Promise<OutboxRelay>;
  write(topic: string, keys: readonly string[], perKey: number): Promise<void>;
  drained(): Promise<void>;
}

async function setup(label: string): Promise<Setup> {
  const db = await createMessagingTestDatabase(label);
  cleanups.push(() => db.close());
  const kafka = testKafka();
  const prefix = `${uniqueName(label)}.`;
  const topics = await createTestTopics(kafka, [
    { name: `${prefix}a`, partitions: 3 },
    { name: `${prefix}b`, partitions: 3 },
  ]);
  cleanups.push(() => topics.deleteTopics());
  const errors: string[] = [];
  const warnings: string[] = [];
  const logger = {
    log: () => undefined,
    warn: (m: string) => void warnings.push(m),
    error: (m: string) => void errors.push(m),
  };
  return {
    db,
    prefix,
    errors,
    warnings,
    relay: async (onPublished) => {
      const relay = new OutboxRelay({
        service: 'order',
        databaseUrl: db.url,
        kafka,
        logger,
        topicPrefix: prefix,
        onPublished,
      });
      cleanups.push(() => relay.stop());
      await relay.start();
      return relay;
    },
    write: (topic, keys, perKey) =>
      db.prisma.$transaction(async (tx) => {
        const events = keys.flatMap((key) =>
          Array.from({ length: perKey }, (_, seq): OutgoingEvent => ({
            topic,
            key,
            type: 'test.happened',
            payload: { key, seq },
            correlationId: key,
          })),
        );
        await writeToOutbox(sqlOverPrisma(tx), events, { source: 'order-service' });
      }),
    drained: async () => {
      await eventually(
        () =>
          db.withClient(async (client) =>
            (await client.query('SELECT 1 FROM outbox')).rowCount === 0 ? true : undefined,
          ),
        { what: 'outbox drained' },
      );
    },
  };
}

/** Where a consumer finds each event: ce_id → topic/partition@offset. */
async function positions(s: Setup, topics: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const topic of topics) {
    for (const record of await readTopic(testKafka(), s.prefix + topic)) {
      found.set(
        headerValue(record.headers, EventHeaders.id) ?? '',
        `${topic}/${record.partition}@${record.offset}`,
      );
    }
  }
  return found;
}

describe('OutboxRelay onPublished', () => {
  it('reports every event’s contract topic, key, partition and offset, and hands over its session', async () => {
    const s = await setup('relay-published');
    const reported: OutboxPublishedRecord[] = [];
    const sessions: string[] = [];
    await s.relay(async (batch, sql) => {
      expect(batch.records).toHaveLength(batch.size);
      reported.push(...batch.records);
      const [row] = await sql.query<{ name: string }>('SELECT current_setting($1) AS name', [
        'application_name',
      ]);
      sessions.push(row!.name);
    });
    const keys = Array.from({ length: 8 }, (_, i) => `key-${i}`);
    await Promise.all([s.write('a', keys, 5), s.write('b', keys, 5), s.write('a', keys.slice(0, 3), 2)]);
    await s.drained();
    // Reported together once the oldest has waited onPublishedIntervalMs (1 s by default).
    await eventually(() => Promise.resolve(reported.length >= 86 ? true : undefined), {
      what: 'all 86 records reported',
    });

    expect(reported).toHaveLength(86);
    const found = await positions(s, ['a', 'b']);
    expect(new Map(reported.map((r) => [r.eventId, `${r.topic}/${r.partition}@${r.offset}`]))).toEqual(found);
    expect(new Set(reported.map((r) => r.key))).toEqual(new Set(keys));
    expect(new Set(sessions)).toEqual(new Set(['outbox-relay:order']));
    expect(s.errors).toEqual([]);
  });

  it('only logs a hook that throws or rejects: every batch is still published and deleted', async () => {
    const s = await setup('relay-published-fails');
    let calls = 0;
    const relay = await s.relay((batch, sql) => {
      calls += 1;
      if (calls === 1) throw new Error('hook threw');
      return sql.execute('SELECT * FROM no_such_table').then(() => undefined);
    });
    await s.write('a', ['k'], 3);
    await s.drained();
    await eventually(() => Promise.resolve(calls >= 1 ? true : undefined), { what: 'first hook call' });
    await s.write('b', ['k'], 2);
    await s.drained();
    await eventually(() => Promise.resolve(s.errors.length >= 2 ? true : undefined), {
      what: 'two logged hook failures',
    });

    expect(s.errors[0]).toMatch(/onPublished failed.*hook threw/);
    expect(s.errors[1]).toMatch(/onPublished failed.*no_such_table/);
    expect(relay.stats.published).toBe(5);
    // A busy broker may refuse the first send to a topic just created (its leader not settled
    // yet): the relay counts that failure, warns and sends again. The hook's errors are never one.
    const failures = s.warnings.filter((warning) => / failure \(/.test(warning));
    expect(relay.stats.failures).toBe(failures.length);
    expect(failures.filter((warning) => /hook threw|no_such_table|onPublished/.test(warning))).toEqual([]);
    expect((await positions(s, ['a', 'b'])).size).toBe(5);
  });
});
