import { describe, expect, it } from 'vitest';
import { PartitionProgress } from './partition-progress';

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
