import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import { CRASH_EXIT_CODE } from './fixtures/fixture-database';
import {
  assertConsumerMainBuilt,
  startConsumerProcess,
  terminate,
  type ConsumerProcess,
} from './fixtures/consumer-process';
import { createTestBed, type TestBed } from './fixtures/test-bed';
import { testEventMessage } from './fixtures/test-events';

describe('KafkaEventServer: crashes and shutdown (fixture service as a process)', () => {
  let bed: TestBed | undefined;
  const processes: ConsumerProcess[] = [];

  beforeAll(() => assertConsumerMainBuilt());

  afterEach(async () => {
    for (const running of processes.splice(0)) running.child.kill('SIGKILL');
    await bed?.close();
    bed = undefined;
  });

  const start = async (current: TestBed, env: Record<string, string> = {}) => {
    const running = await startConsumerProcess(current, env);
    processes.push(running);
    return running;
  };

  it('a crash after the database commit but before the offset commit is redelivered without a second effect', async () => {
    bed = await createTestBed('crash_commit');
    const messages = ['a', 'crash', 'c'].map((key, seq) => testEventMessage({ key, seq }));
    await bed.send(messages);

    // The broker's minimum session timeout: the dead member is evicted sooner, the test is shorter.
    const crashing = await start(bed, { CRASH_AFTER_COMMIT_KEY: 'crash', SESSION_TIMEOUT_MS: '6000' });
    expect(await crashing.exited).toBe(CRASH_EXIT_CODE);
    // The effects committed; the offsets did not.
    expect((await bed.effectCounts()).size).toBe(3);
    expect((await bed.committed()).get(0) ?? -1).toBe(-1);

    const restarted = await start(bed);
    await eventually(async () => ((await bed!.committed()).get(0) === 3 ? true : undefined), {
      what: 'offset committed after redelivery',
    });
    expect(await terminate(restarted)).toBe('SIGTERM');
    expect(restarted.shutdownReport()).toMatchObject({ processed: 0, deduplicated: 3 });
    const effects = await bed.effectCounts();
    expect(messages.map((message) => effects.get(message.id))).toEqual([1, 1, 1]);
  });

  it('SIGTERM during a batch finishes the transaction in hand and commits it: nothing lost, nothing applied twice', async () => {
    bed = await createTestBed('crash_sigterm');
    const total = 60;
    const messages = Array.from({ length: total }, (_, seq) => testEventMessage({ key: `k${seq}`, seq }));
    await bed.send(messages);

    const slow = await start(bed, { SLOW_MS: '100', MAX_EVENTS_PER_TRANSACTION: '10' });
    // In the middle of the batch: some chunks committed, one in flight, the rest not started.
    await eventually(async () => ((await bed!.committed()).get(0) ?? 0) >= 10 || undefined, {
      what: 'first chunk committed',
    });
    const stoppingAt = performance.now();
    expect(await terminate(slow)).toBe('SIGTERM');
    expect(performance.now() - stoppingAt).toBeLessThan(5_000);
    const first = slow.shutdownReport() as { processed: number };
    const committed = (await bed.committed()).get(0);
    expect(first.processed).toBeGreaterThanOrEqual(10);
    expect(first.processed).toBeLessThan(total);
    // Everything processed was committed before the process left: the offset is exactly there.
    expect(committed).toBe(first.processed);
    expect((await bed.effectCounts()).size).toBe(first.processed);

    const restarted = await start(bed);
    await eventually(async () => ((await bed!.committed()).get(0) === total ? true : undefined), {
      what: 'all offsets committed',
    });
    await terminate(restarted);
    expect(restarted.shutdownReport()).toMatchObject({ processed: total - first.processed, deduplicated: 0 });
    const effects = await bed.effectCounts();
    expect(messages.map((message) => effects.get(message.id) ?? 0)).toEqual(messages.map(() => 1));
  });
});
