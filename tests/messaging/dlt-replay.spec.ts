import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { KAFKA_BROKERS, readTopic } from '../support/kafka';
import { eventually, REPO_ROOT } from '../support/processes';
import { fixtureBehaviour } from './fixtures/fixture-behaviour';
import { startFixtureConsumer, type FixtureConsumer } from './fixtures/start-consumer';
import { CapturingLogger, createTestBed, type TestBed } from './fixtures/test-bed';
import { testEventMessage } from './fixtures/test-events';

const run = promisify(execFile);
const DLT_CLI = resolve(REPO_ROOT, 'dist/tools/dlt.js');

/** `npm run dlt -- replay ...` as an operator runs it, against this test's dead-letter topic. */
async function dltReplay(deadLetterTopic: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [DLT_CLI, 'replay', '--service', 'order', '--topic', deadLetterTopic, ...args],
    { cwd: REPO_ROOT, env: { ...process.env, KAFKA_BROKERS: KAFKA_BROKERS.join(',') } },
  );
  return stdout;
}

describe('dlt replay after the handler is fixed', () => {
  let bed: TestBed | undefined;
  let consumer: FixtureConsumer | undefined;

  afterEach(async () => {
    await consumer?.app.close();
    await bed?.close();
    consumer = undefined;
    bed = undefined;
  });

  it('processes the replayed event once, and deduplicates a second replay', async () => {
    bed = await createTestBed('dlt-replay');
    const current = bed;
    const behaviour = fixtureBehaviour(current.groupId, { retriableKeys: new Set(['broken']) });
    consumer = await startFixtureConsumer({
      service: current.service,
      topics: [current.topic],
      kafka: current.kafka,
      databaseUrl: current.db.url,
      behaviour,
      logger: new CapturingLogger(),
    });
    const failing = testEventMessage({ key: 'broken', seq: 1 });
    const fine = testEventMessage({ key: 'fine', seq: 2 });
    await current.send([failing, fine]);

    // The failing event exhausts its attempts and is dead-lettered; the partition moves on.
    await eventually(
      async () => ((await readTopic(current.kafka, current.deadLetterTopic)).length === 1 ? true : undefined),
      {
        what: 'the dead letter',
      },
    );
    await eventually(async () => ((await current.effectCounts()).get(fine.id) === 1 ? true : undefined), {
      what: 'the next event processed',
    });
    expect((await current.effectCounts()).get(failing.id)).toBeUndefined();

    // Fix the handler, replay that one event by id: it is processed, once.
    behaviour.retriableKeys.delete('broken');
    expect(await dltReplay(current.deadLetterTopic, '--event-id', failing.id)).toMatch(/replayed 1\b/);
    await eventually(async () => ((await current.effectCounts()).get(failing.id) === 1 ? true : undefined), {
      what: 'the replayed event processed',
    });

    // Replaying it again (it had in fact succeeded by now) is deduplicated by the inbox.
    const deduplicatedBefore = consumer.server.counters.deduplicated;
    await dltReplay(current.deadLetterTopic);
    await eventually(
      () =>
        Promise.resolve(consumer?.server.counters.deduplicated === deduplicatedBefore + 1 ? true : undefined),
      {
        what: 'the second replay deduplicated',
      },
    );
    const counts = await current.effectCounts();
    expect(counts.get(failing.id)).toBe(1);
    expect(counts.get(fine.id)).toBe(1);
    // Failing, fine and the two replays; offsets are committed at most once a second.
    await eventually(async () => ((await current.committed()).get(0) === 4 ? true : undefined), {
      what: 'offset 4 committed',
    });
  });
});
