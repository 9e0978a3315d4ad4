import { afterEach, describe, expect, it } from 'vitest';
import { readTopic } from '../support/kafka';
import { eventually } from '../support/processes';
import { fixtureBehaviour } from './fixtures/fixture-behaviour';
import { startFixtureConsumer, type FixtureConsumer } from './fixtures/start-consumer';
import { CapturingLogger, createTestBed, type TestBed } from './fixtures/test-bed';
import { testContracts, testEventMessage } from './fixtures/test-events';

describe('KafkaEventServer: a consumer kafkajs gives up on', () => {
  let bed: TestBed | undefined;
  let consumer: FixtureConsumer | undefined;

  afterEach(async () => {
    await consumer?.app.close();
    await bed?.close();
    consumer = undefined;
    bed = undefined;
  });

  it('is reported unhealthy, restarted with backoff, and then processes the event once', async () => {
    bed = await createTestBed('restart');
    const contracts = testContracts([bed.topic]);
    let faults = 1;
    const logger = new CapturingLogger();
    consumer = await startFixtureConsumer({
      service: bed.service,
      topics: [bed.topic],
      kafka: bed.kafka,
      databaseUrl: bed.db.url,
      behaviour: fixtureBehaviour(bed.service),
      logger,
      server: {
        // A bug outside the handlers (here: in the contracts) escapes eachBatch; once kafkajs's
        // own retries are spent the consumer crashes.
        contracts: {
          ...contracts,
          isDeclaredFor: (topic, type) => {
            if (faults-- > 0) throw new Error('injected fault in the consumer');
            return contracts.isDeclaredFor(topic, type);
          },
        },
        restartBackoff: { initialBackoffMs: 500, maxBackoffMs: 1_000 },
        kafkaRetry: { retries: 0 },
      },
    });
    const { server } = consumer;
    await eventually(() => Promise.resolve(server.consumerStatus().healthy || undefined), {
      what: 'healthy',
    });
    const crashes: string[] = [];
    server.on('crash', (error) => crashes.push(error.message));

    const event = testEventMessage({ key: 'k', seq: 1 });
    await bed.send([event]);
    await eventually(() => Promise.resolve(server.consumerStatus().state === 'restarting' || undefined), {
      what: 'restarting',
      intervalMs: 20,
    });
    expect(server.consumerStatus().healthy).toBe(false);
    expect(server.consumerStatus().lastError).toBe('injected fault in the consumer');

    await eventually(async () => ((await bed!.committed()).get(0) === 1 ? true : undefined), {
      what: 'event processed after the restart',
    });
    await eventually(() => Promise.resolve(server.consumerStatus().healthy || undefined), {
      what: 'healthy again',
    });
    expect(server.consumerStatus().counters).toMatchObject({ restarts: 1, processed: 1 });
    expect(crashes).toEqual(['injected fault in the consumer']);
    expect((await bed.effectCounts()).get(event.id)).toBe(1);
    expect(logger.lines.some((line) => line.level === 'error' && line.message.includes('gave up'))).toBe(
      true,
    );
  });

  it('does not dead-letter during a database outage: it stops, restarts, and processes the event once the database is back', async () => {
    bed = await createTestBed('outage');
    const behaviour = fixtureBehaviour(bed.service, { databaseDown: true });
    consumer = await startFixtureConsumer({
      service: bed.service,
      topics: [bed.topic],
      kafka: bed.kafka,
      databaseUrl: bed.db.url,
      behaviour,
      logger: new CapturingLogger(),
      server: { restartBackoff: { initialBackoffMs: 300, maxBackoffMs: 600 }, kafkaRetry: { retries: 0 } },
    });
    const { server } = consumer;
    const event = testEventMessage({ key: 'k', seq: 1 });
    await bed.send([event]);
    await eventually(() => Promise.resolve(server.consumerStatus().counters.restarts >= 2 || undefined), {
      what: 'two restarts during the outage',
    });
    expect(server.consumerStatus().lastError).toContain('database unavailable');
    expect(server.consumerStatus().counters.deadLettered).toBe(0);

    behaviour.databaseDown = false;
    await eventually(async () => ((await bed!.committed()).get(0) === 1 ? true : undefined), {
      what: 'event processed after the outage',
    });
    expect((await bed.effectCounts()).get(event.id)).toBe(1);
    expect(server.consumerStatus().counters.deadLettered).toBe(0);
    expect(await readTopic(bed.kafka, bed.deadLetterTopic)).toHaveLength(0);
  });
});
