import { DeadLetterHeaders, EventHeaders, headerValue } from '@pipeline/contracts';
import { createServedTopics } from '@pipeline/messaging';
import { CompressionTypes, type KafkaMessage } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { readTopic } from '../support/kafka';
import { eventually } from '../support/processes';
import { fixtureBehaviour, type FixtureBehaviour } from './fixtures/fixture-behaviour';
import { startFixtureConsumer, type FixtureConsumer } from './fixtures/start-consumer';
import { CapturingLogger, createTestBed, type TestBed } from './fixtures/test-bed';
import { testEventMessage } from './fixtures/test-events';

const header = (message: KafkaMessage, name: string) => headerValue(message.headers, name);

describe('KafkaEventServer: failure policy', () => {
  let bed: TestBed | undefined;
  let consumer: FixtureConsumer | undefined;

  afterEach(async () => {
    await consumer?.app.close();
    await bed?.close();
    consumer = undefined;
    bed = undefined;
  });

  const start = async (current: TestBed, behaviour: FixtureBehaviour, logger = new CapturingLogger()) => {
    consumer = await startFixtureConsumer({
      service: current.service,
      topics: [current.topic],
      kafka: current.kafka,
      databaseUrl: current.db.url,
      behaviour,
      logger,
    });
    return { server: consumer.server, logger };
  };

  const deadLetters = async (current: TestBed, count: number) =>
    eventually(
      async () => {
        const records = await readTopic(current.kafka, current.deadLetterTopic);
        return records.length >= count ? records : undefined;
      },
      { what: `${count} dead letters` },
    );

  const committedPast = async (current: TestBed, offset: number) =>
    eventually(async () => ((await current.committed()).get(0) === offset ? true : undefined), {
      what: `committed offset ${offset}`,
    });

  it('retries a retriable failure 3 times with backoff, dead-letters it with every diagnostic header, and moves on', async () => {
    bed = await createTestBed('fail_retry');
    const behaviour = fixtureBehaviour(bed.service, { retriableKeys: new Set(['bad']) });
    const { server, logger } = await start(bed, behaviour);
    const bad = testEventMessage({ key: 'bad', seq: 1 });
    const next = testEventMessage({ key: 'good', seq: 2 });
    await bed.send([bad, next]);

    const [letter] = await deadLetters(bed, 1);
    await committedPast(bed, 2);
    expect(behaviour.calls.get('bad')).toBe(3);
    const [t1, t2, t3] = behaviour.callTimes.get('bad')!;
    // initialBackoffMs 100, doubling, ±20 % jitter.
    expect(t2! - t1!).toBeGreaterThanOrEqual(75);
    expect(t3! - t2!).toBeGreaterThanOrEqual(155);

    expect(letter!.key?.toString()).toBe('bad');
    expect(letter!.value?.toString()).toBe(bad.value);
    expect(header(letter!, EventHeaders.id)).toBe(bad.id);
    expect(header(letter!, DeadLetterHeaders.originalTopic)).toBe(bed.topic);
    expect(header(letter!, DeadLetterHeaders.originalPartition)).toBe('0');
    expect(header(letter!, DeadLetterHeaders.originalOffset)).toBe('0');
    expect(header(letter!, DeadLetterHeaders.error)).toBe('downstream unavailable for bad');
    expect(header(letter!, DeadLetterHeaders.errorClass)).toBe('retriable');
    expect(header(letter!, DeadLetterHeaders.attempts)).toBe('3');
    expect(new Date(header(letter!, DeadLetterHeaders.failedAt)!).toISOString()).toBe(
      header(letter!, DeadLetterHeaders.failedAt),
    );
    expect(header(letter!, DeadLetterHeaders.consumerGroup)).toBe(bed.groupId);

    const effects = await bed.effectCounts();
    expect([...effects.entries()]).toEqual([[next.id, 1]]);
    expect(server.consumerStatus().counters).toMatchObject({ processed: 1, retried: 2, deadLettered: 1 });
    // The service's own dead-letter log shows it to an operator.
    const warned = await eventually(
      () =>
        Promise.resolve(
          logger.lines.find((line) => line.level === 'warn' && line.message.startsWith('dead letter')),
        ),
      { what: 'dead-letter WARN log' },
    );
    expect(warned.message).toContain(`ce_id=${bad.id}`);
    expect(warned.message).toContain('error_class="retriable"');
    expect(warned.message).toContain('attempts="3"');
  });

  it('dead-letters a fatal failure (a programmer error) at once', async () => {
    bed = await createTestBed('fail_fatal');
    const behaviour = fixtureBehaviour(bed.service, { fatalKeys: new Set(['bad']) });
    await start(bed, behaviour);
    await bed.send([testEventMessage({ key: 'bad', seq: 1 }), testEventMessage({ key: 'good', seq: 2 })]);
    const [letter] = await deadLetters(bed, 1);
    await committedPast(bed, 2);
    expect(behaviour.calls.get('bad')).toBe(1);
    expect(header(letter!, DeadLetterHeaders.errorClass)).toBe('fatal');
    expect(header(letter!, DeadLetterHeaders.attempts)).toBe('1');
    expect(header(letter!, DeadLetterHeaders.error)).toContain('cannot read properties of undefined');
  });

  it('dead-letters a fatal event behind one that is then blocked only once, after the blocked one passes', async () => {
    bed = await createTestBed('fail_behind_blocked');
    // One transaction runs `first` (fine) and `bad` (fatal, named). Running `first` again alone
    // fails (call 2), which blocks the partition before `bad`: `bad` is fetched and fails again
    // after the backoff, and only that time may it be dead-lettered.
    const behaviour = fixtureBehaviour(bed.service, {
      fatalKeys: new Set(['bad']),
      failingCalls: new Map([['first', new Set([2])]]),
    });
    await start(bed, behaviour);
    await bed.send([testEventMessage({ key: 'first', seq: 1 }), testEventMessage({ key: 'bad', seq: 2 })]);
    await committedPast(bed, 2);
    // The scenario happened: `first` ran in the failed transaction, alone (failing), and twice more.
    expect(behaviour.calls.get('first')).toBe(4);
    expect(behaviour.calls.get('bad')).toBe(2);
    const letters = await readTopic(bed.kafka, bed.deadLetterTopic);
    expect(letters.map((letter) => header(letter, DeadLetterHeaders.originalOffset))).toEqual(['1']);
  });

  it('fails the batch visibly when its dead letter cannot be written, and moves on only once it is', async () => {
    bed = await createTestBed('fail_dlt_missing');
    const current = bed;
    // A dead-letter topic that does not exist yet (topics are never created automatically).
    const missing = `${current.deadLetterTopic}.late`;
    const behaviour = fixtureBehaviour(current.service, { fatalKeys: new Set(['bad']) });
    consumer = await startFixtureConsumer({
      service: current.service,
      topics: [current.topic],
      kafka: current.kafka,
      databaseUrl: current.db.url,
      behaviour,
      logger: new CapturingLogger(),
      server: {
        deadLetterTopic: missing,
        logDeadLetters: false,
        kafkaRetry: { retries: 0 },
        restartBackoff: { initialBackoffMs: 200, maxBackoffMs: 1_000 },
      },
    });
    const server = consumer.server;
    await current.send([testEventMessage({ key: 'bad', seq: 1 }), testEventMessage({ key: 'good', seq: 2 })]);
    // The send gives up, the batch fails and the consumer is restarted: counted, not hanging.
    await eventually(
      () => Promise.resolve(server.consumerStatus().counters.restarts >= 1 ? true : undefined),
      {
        what: 'a consumer restart after the dead-letter send failed',
        timeoutMs: 120_000,
      },
    );
    expect((await current.committed()).get(0)).toBe(-1);
    const admin = current.kafka.admin();
    await admin.connect();
    try {
      await createServedTopics(admin, [{ topic: missing, numPartitions: 1 }]);
      await committedPast(current, 2);
      const letters = await readTopic(current.kafka, missing);
      expect(letters.map((letter) => letter.key?.toString())).toEqual(['bad']);
      expect(behaviour.calls.get('good')).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.deleteTopics({ topics: [missing] }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 240_000);

  it('dead-letters poison records at once (fatal, 1 attempt) and keeps the partition flowing', async () => {
    bed = await createTestBed('fail_poison');
    const behaviour = fixtureBehaviour(bed.service);
    await start(bed, behaviour);
    const valid = testEventMessage({ key: 'k', seq: 1 });
    const garbage = {
      ...testEventMessage({ key: 'garbage', seq: 0 }),
      value: Buffer.from([0xde, 0xad, 0xbe, 0xef]),
    };
    const violating = testEventMessage({ key: 'schema', seq: 0, payload: { seq: 'one', extra: true } });
    const undeclared = testEventMessage({ key: 'type', seq: 0, type: 'test.unknown' });
    const futureVersion = testEventMessage({ key: 'version', seq: 0 });
    futureVersion.headers = {
      ...futureVersion.headers,
      [EventHeaders.dataSchema]: 'urn:order-pipeline:test.happened:v2',
    };
    const headerless = { key: 'headers', value: JSON.stringify({ seq: 0 }) };
    const last = testEventMessage({ key: 'k', seq: 2 });
    await bed.send([valid, garbage, violating, undeclared, futureVersion, headerless, last]);

    const letters = await deadLetters(bed, 5);
    await committedPast(bed, 7);
    const byKey = new Map(letters.map((letter) => [letter.key?.toString(), letter]));
    expect([...byKey.keys()].sort()).toEqual(['garbage', 'headers', 'schema', 'type', 'version']);
    for (const letter of letters) {
      expect(header(letter, DeadLetterHeaders.errorClass)).toBe('fatal');
      expect(header(letter, DeadLetterHeaders.attempts)).toBe('1');
    }
    expect(header(byKey.get('garbage')!, DeadLetterHeaders.error)).toContain('not JSON');
    expect(byKey.get('garbage')!.value).toEqual(garbage.value);
    expect(header(byKey.get('schema')!, DeadLetterHeaders.error)).toContain(
      'violates the "test.happened" schema',
    );
    expect(header(byKey.get('type')!, DeadLetterHeaders.error)).toContain('not declared for topic');
    expect(header(byKey.get('version')!, DeadLetterHeaders.error)).toContain('unsupported ce_dataschema');
    expect(header(byKey.get('headers')!, DeadLetterHeaders.error)).toContain('missing required headers');
    expect(header(byKey.get('version')!, DeadLetterHeaders.originalOffset)).toBe('4');
    expect(behaviour.calls.get('k')).toBe(2);
    expect([...behaviour.calls.keys()]).toEqual(['k']);
    expect((await bed.effectCounts()).size).toBe(2);
  });

  it('dead-letters a burst of poison records heavier than one produce request, and moves on', async () => {
    bed = await createTestBed('fail_burst');
    const behaviour = fixtureBehaviour(bed.service);
    // 4 KiB of garbage each, all in the log before the consumer starts: its first fetch (1 MiB a
    // partition) holds about 230 of them, one transaction chunk, and their dead letters, each
    // heavier by the diagnostic headers, weigh more than the broker takes in one record batch.
    const garbage = Array.from({ length: 300 }, (_, index) => ({
      ...testEventMessage({ key: `garbage-${index}`, seq: 0 }),
      value: Buffer.alloc(4 * 1024, 0xff),
    }));
    for (let from = 0; from < garbage.length; from += 10) await bed.send(garbage.slice(from, from + 10));
    await bed.send([testEventMessage({ key: 'k', seq: 1 })]);
    await start(bed, behaviour);

    await committedPast(bed, 301);
    const letters = await deadLetters(bed, 300);
    expect(letters.map((letter) => letter.key?.toString())).toEqual(garbage.map((record) => record.key));
    expect(behaviour.calls.get('k')).toBe(1);
  });

  it('dead-letters a poison record that arrived compressed and is larger than a topic takes plain, and moves on', async () => {
    bed = await createTestBed('fail_heavy');
    const behaviour = fixtureBehaviour(bed.service);
    // 3 MiB that zstd shrinks to kilobytes: legal on the source topic (1 MiB batches) as it came;
    // its letter, sent plain, would be refused by the dead-letter topic on every retry.
    const heavy = { key: 'heavy', value: Buffer.alloc(3 * 1024 * 1024, 0x20), headers: { 'x-odd': 'yes' } };
    await bed.producer.send({
      topic: bed.topic,
      acks: -1,
      compression: CompressionTypes.ZSTD,
      messages: [heavy],
    });
    await bed.send([testEventMessage({ key: 'k', seq: 1 })]);
    await start(bed, behaviour);

    await committedPast(bed, 2);
    const [letter] = await deadLetters(bed, 1);
    expect(letter!.key?.toString()).toBe('heavy');
    expect(letter!.value).toEqual(heavy.value);
    expect(header(letter!, DeadLetterHeaders.error)).toContain('missing required headers');
    expect(behaviour.calls.get('k')).toBe(1);
  });

  it('isolates a transient failure: the batch still applies every other event once', async () => {
    bed = await createTestBed('fail_flaky');
    const behaviour = fixtureBehaviour(bed.service, { flakyKeys: new Map([['flaky', 1]]) });
    const { server } = await start(bed, behaviour);
    const messages = ['a', 'b', 'flaky', 'c', 'd'].map((key, seq) => testEventMessage({ key, seq }));
    await bed.send(messages);
    await committedPast(bed, 5);

    const effects = await bed.effectCounts();
    expect(messages.map((message) => effects.get(message.id))).toEqual([1, 1, 1, 1, 1]);
    expect(behaviour.calls.get('flaky')).toBe(2);
    expect(server.consumerStatus().counters).toMatchObject({ processed: 5, retried: 1, deadLettered: 0 });
    expect(await readTopic(bed.kafka, bed.deadLetterTopic)).toHaveLength(0);
  });
});
