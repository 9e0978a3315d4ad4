import { randomUUID } from 'node:crypto';
import { DeadLetterHeaders } from '@pipeline/contracts';
import type { Consumer } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import { readTopic } from '../support/kafka';
import { fixtureBehaviour } from './fixtures/fixture-behaviour';
import { startFixtureConsumer, type FixtureConsumer } from './fixtures/start-consumer';
import { createTestBed, type TestBed } from './fixtures/test-bed';
import { IGNORED_EVENT, testEventMessage } from './fixtures/test-events';

describe('KafkaEventServer: inbox and consumption', () => {
  let bed: TestBed | undefined;
  let consumer: FixtureConsumer | undefined;

  afterEach(async () => {
    await consumer?.app.close();
    await bed?.close();
    consumer = undefined;
    bed = undefined;
  });

  const start = async (current: TestBed) => {
    consumer = await startFixtureConsumer({
      service: current.service,
      topics: [current.topic],
      kafka: current.kafka,
      databaseUrl: current.db.url,
      behaviour: fixtureBehaviour(current.service),
    });
    return consumer.server;
  };

  it('applies an event delivered twice (same ce_id) once, in one batch and across batches', async () => {
    bed = await createTestBed('inbox_dup');
    const server = await start(bed);
    const first = testEventMessage({ key: 'k1', seq: 1 });
    const second = testEventMessage({ key: 'k2', seq: 2 });
    // The same id twice in one batch, then again in a later batch.
    await bed.send([first, second, first]);
    await eventually(async () => ((await bed!.committed()).get(0) === 3 ? true : undefined), {
      what: 'offset 3',
    });
    await bed.send([first, testEventMessage({ key: 'k3', seq: 3 })]);
    await eventually(async () => ((await bed!.committed()).get(0) === 5 ? true : undefined), {
      what: 'offset 5',
    });

    const effects = await bed.effectCounts();
    expect(effects.get(first.id)).toBe(1);
    expect(effects.get(second.id)).toBe(1);
    expect([...effects.values()].reduce((a, b) => a + b, 0)).toBe(3);
    expect(await bed.db.prisma.inbox.count({ where: { consumer: bed.groupId } })).toBe(3);
    expect(server.consumerStatus().counters).toMatchObject({
      processed: 3,
      deduplicated: 2,
      deadLettered: 0,
    });
  });

  it('applies an event whose ce_id is an upper-case UUID once, and drops its lower-case redelivery', async () => {
    bed = await createTestBed('inbox_case');
    const server = await start(bed);
    const upper = testEventMessage({ key: 'k1', seq: 1, id: randomUUID().toUpperCase() });
    await bed.send([upper]);
    await eventually(async () => ((await bed!.committed()).get(0) === 1 ? true : undefined), {
      what: 'offset 1',
    });
    await bed.send([testEventMessage({ key: 'k1', seq: 1, id: upper.id.toLowerCase() })]);
    await eventually(async () => ((await bed!.committed()).get(0) === 2 ? true : undefined), {
      what: 'offset 2',
    });
    const effects = await bed.effectCounts();
    expect([...effects.values()]).toEqual([1]);
    expect(server.consumerStatus().counters).toMatchObject({ processed: 1, deduplicated: 1 });
  });

  it('skips and commits a declared event type the service has no handler for', async () => {
    bed = await createTestBed('inbox_skip');
    const server = await start(bed);
    const handled = testEventMessage({ key: 'k2', seq: 2 });
    await bed.send([testEventMessage({ key: 'k1', seq: 1, type: IGNORED_EVENT }), handled]);
    await eventually(async () => ((await bed!.committed()).get(0) === 2 ? true : undefined), {
      what: 'offset 2',
    });

    expect([...(await bed.effectCounts()).keys()]).toEqual([handled.id]);
    expect(await bed.db.prisma.inbox.count()).toBe(1);
    expect(server.consumerStatus().counters.skippedByType).toEqual({ [IGNORED_EVENT]: 1 });
    expect(await readTopic(bed.kafka, bed.deadLetterTopic)).toHaveLength(0);
  });

  it('publishes from a handler through the outbox of the same transaction, caused by the consumed event', async () => {
    bed = await createTestBed('inbox_publish');
    await start(bed);
    const cause = testEventMessage({ key: 'order-1', seq: 7, payload: { seq: 7, note: 'publish' } });
    await bed.send([cause]);
    const row = await eventually(async () => (await bed!.db.prisma.outbox.findFirst()) ?? undefined, {
      what: 'outbox row',
    });
    expect(row).toMatchObject({
      topic: `${bed.topic}.out`,
      key: 'order-1',
      type: 'test.followed',
      payload: { seq: 7 },
    });
    expect(row.headers).toMatchObject({
      ce_source: `${bed.service}-service`,
      causation_id: cause.id,
      correlation_id: 'order-1',
    });
    expect(Object.keys(row.headers as object)).not.toContain(DeadLetterHeaders.errorClass);
  });

  it('coalesces offset commits while events trickle in, and commits the last one once idle', async () => {
    bed = await createTestBed('inbox_commits');
    const server = await start(bed);
    const kafkaConsumer = server.unwrap<Consumer>();
    let offsetCommits = 0;
    kafkaConsumer.on(kafkaConsumer.events.REQUEST, (event) => {
      if (event.payload.apiName === 'OffsetCommit') offsetCommits += 1;
    });
    const events = 20;
    const startedAt = performance.now();
    // One event at a time, each applied before the next is sent: one transaction each.
    for (let seq = 1; seq <= events; seq += 1) {
      await bed.send([testEventMessage({ key: `k${seq}`, seq })]);
      await eventually(async () => ((await bed!.effectCounts()).size === seq ? true : undefined), {
        what: `event ${seq} applied`,
        intervalMs: 10,
      });
    }
    const seconds = (performance.now() - startedAt) / 1000;
    // Nothing more arrives: the timer commits the last offsets.
    await eventually(async () => ((await bed!.committed()).get(0) === events ? true : undefined), {
      what: `offset ${events} committed`,
    });

    expect(server.consumerStatus().counters.processed).toBe(events);
    // At most one OffsetCommit a second (default interval), plus the one of the idle tail.
    expect(offsetCommits).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    expect(offsetCommits).toBeLessThan(events);
  });

  it('processes a backlog in batches: one transaction per chunk, every event once', async () => {
    bed = await createTestBed('inbox_backlog', 4);
    const total = 4_000;
    const messages = Array.from({ length: total }, (_, seq) =>
      testEventMessage({ key: `key-${seq % 97}`, seq }),
    );
    for (let i = 0; i < total; i += 500) await bed.send(messages.slice(i, i + 500));
    const server = await start(bed);
    const processed = () => server.consumerStatus().counters.processed;
    // Measured from the first event processed: joining the group is not consumption.
    const startedAt = await eventually(
      () => Promise.resolve(processed() > 0 ? performance.now() : undefined),
      {
        what: 'first event processed',
        intervalMs: 10,
      },
    );
    const before = processed();
    await eventually(() => Promise.resolve(processed() >= total || undefined), {
      what: `${total} events processed`,
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    const seconds = (performance.now() - startedAt) / 1000;
    const rate = Math.round((total - before) / seconds);
    console.info(`[consumer backlog] ${total - before} events in ${seconds.toFixed(2)} s: ${rate} events/s`);
    const effects = await bed.effectCounts();
    expect(effects.size).toBe(total);
    expect([...effects.values()].every((count) => count === 1)).toBe(true);
  });
});
