import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { CrashStreak, PartitionProgress, isBrokerOutage } from './liveness';

// Not part of kafkajs's public API: the errors its protocol layer raises for a broker's error code.
const { createErrorFromCode } = createRequire(__filename)('kafkajs/src/protocol/error') as {
  createErrorFromCode: (code: number) => Error;
};

const connectionLost = () =>
  Object.assign(new Error('Connection error: ECONNREFUSED'), { name: 'KafkaJSConnectionError' });

describe('CrashStreak', () => {
  it('reports a consumer that keeps crashing without progress once the streak is as long as the timeout', () => {
    let now = 0;
    const streak = new CrashStreak(60_000, () => now);
    for (; now <= 10_000; now += 1_000) streak.crashed(new Error('Snappy compression not implemented'));
    now = 10_000;
    expect(streak.looping(11_000)).toBeUndefined();
    expect(streak.looping(10_000)).toEqual({
      crashes: 11,
      loopingMs: 10_000,
      lastError: 'Snappy compression not implemented',
    });
  });

  it('ends the streak on progress, or when crashes stop coming', () => {
    let now = 0;
    const streak = new CrashStreak(5_000, () => now);
    streak.crashed(new Error('a'));
    now = 4_000;
    streak.crashed(new Error('b'));
    expect(streak.looping(4_000)).toMatchObject({ crashes: 2 });
    streak.progressed();
    expect(streak.looping(0)).toBeUndefined();
    streak.crashed(new Error('c'));
    now = 9_001;
    expect(streak.looping(0)).toBeUndefined();
  });

  it('never counts a broker outage: no restart cures one', () => {
    let now = 0;
    const streak = new CrashStreak(60_000, () => now);
    for (; now < 20_000; now += 1_000) {
      const retries = Object.assign(new Error('retries exceeded', { cause: connectionLost() }), {
        name: 'KafkaJSNumberOfRetriesExceeded',
      });
      streak.crashed(retries);
    }
    expect(streak.looping(1_000)).toBeUndefined();
    // As kafkajs builds them from the broker's error codes: 15, 16, 5, 6.
    for (const code of [15, 16, 5, 6])
      expect(isBrokerOutage(createErrorFromCode(code)), String(code)).toBe(true);
    expect(isBrokerOutage(createErrorFromCode(2))).toBe(false); // CORRUPT_MESSAGE
    expect(isBrokerOutage(Object.assign(new Error('x'), { name: 'KafkaJSNotImplemented' }))).toBe(false);
  });
});

describe('PartitionProgress', () => {
  let now = 0;
  const progress = () => new PartitionProgress(() => now);

  it('names a partition that has had lag and no finished attempt for the timeout', () => {
    now = 0;
    const tracker = progress();
    tracker.lag('orders', 1, 3);
    now = 999;
    expect(tracker.stalled(1_000)).toEqual([]);
    now = 1_000;
    expect(tracker.stalled(1_000)).toEqual([{ topic: 'orders', partition: 1, lag: 3, stalledMs: 1_000 }]);
  });

  it('keeps a partition that retries (each attempt finishes) or has no lag alive', () => {
    now = 0;
    const tracker = progress();
    tracker.lag('orders', 0, 5);
    tracker.lag('orders', 2, 0);
    for (now = 500; now <= 5_000; now += 500) tracker.attempted('orders', 0);
    expect(tracker.stalled(1_000)).toEqual([]);
  });

  it('forgets lag that is gone, and holds every clock while no broker answers', () => {
    now = 0;
    const tracker = progress();
    tracker.lag('orders', 0, 5);
    tracker.lag('payments', 0, 5);
    tracker.lag('payments', 0, 0);
    now = 5_000;
    expect(tracker.stalled(1_000).map(({ topic }) => topic)).toEqual(['orders']);
    tracker.brokerAway();
    expect(tracker.stalled(1_000)).toEqual([]);
    now = 6_000;
    expect(tracker.stalled(1_000).map(({ topic, lag }) => [topic, lag])).toEqual([['orders', 5]]);
  });
});
