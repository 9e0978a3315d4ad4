import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OffsetCommits, byTopic } from './supervised-consumer';

const at = (partition: number, offset: string) => ({ topic: 'orders', partition, offset });

describe('OffsetCommits', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('commits the first offsets at once, then at most once per interval, the waiting ones by a timer', async () => {
    const send = vi.fn(() => Promise.resolve());
    const commits = new OffsetCommits(send, 1_000, () => undefined);

    await commits.add([at(0, '5')]);
    await commits.add([at(0, '6'), at(1, '3')]);
    await commits.add([at(0, '9')]);
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenLastCalledWith([at(0, '5')]);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(send).toHaveBeenCalledTimes(2);
    expect(send).toHaveBeenLastCalledWith([at(0, '9'), at(1, '3')]);
  });

  it('never moves a partition backwards inside one assignment', async () => {
    const send = vi.fn(() => Promise.resolve());
    const commits = new OffsetCommits(send, 1_000, () => undefined);
    await commits.add([at(0, '1')]);
    await commits.add([at(0, '40')]);
    await commits.add([at(0, '12')]);
    await commits.flush();
    expect(send).toHaveBeenLastCalledWith([at(0, '40')]);
  });

  it('keeps offsets whose commit failed for the next commit, and reports the timer failure', async () => {
    const send = vi
      .fn<(offsets: unknown[]) => Promise<void>>()
      .mockResolvedValueOnce(undefined)
      .mockRejectedValueOnce(new Error('coordinator moved'))
      .mockResolvedValue(undefined);
    const failures: unknown[] = [];
    const commits = new OffsetCommits(send, 1_000, (error) => failures.push(error));
    await commits.add([at(0, '1')]);
    await commits.add([at(0, '2')]);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(failures).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(send).toHaveBeenCalledTimes(3);
    expect(send).toHaveBeenLastCalledWith([at(0, '2')]);
  });

  it('drops the offsets of partitions a new assignment took away, and everything on clear', async () => {
    const send = vi.fn(() => Promise.resolve());
    const commits = new OffsetCommits(send, 1_000, () => undefined);
    await commits.add([at(9, '1')]);
    await commits.add([at(0, '4'), at(1, '7')]);
    commits.retain((_, partition) => partition === 1);
    await commits.flush();
    expect(send).toHaveBeenLastCalledWith([at(1, '7')]);

    await commits.add([at(1, '8')]);
    commits.clear();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('does not keep a failed commit for later once a new assignment came meanwhile', async () => {
    let fail: (error: Error) => void = () => undefined;
    const send = vi
      .fn<(offsets: unknown[]) => Promise<void>>()
      .mockImplementationOnce(() => new Promise<void>((_, reject) => (fail = reject)))
      .mockResolvedValue(undefined);
    const commits = new OffsetCommits(send, 0, () => undefined);
    const first = commits.add([at(0, '5')]);
    await vi.advanceTimersByTimeAsync(0); // the request is out
    commits.retain(() => true);
    fail(new Error('rebalance in progress'));
    await expect(first).rejects.toThrow('rebalance in progress');
    await commits.flush();
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('commits every offset at once once the consumer is stopping', async () => {
    const send = vi.fn(() => Promise.resolve());
    const commits = new OffsetCommits(send, 1_000, () => undefined);
    await commits.add([at(0, '1')]);
    commits.commitEveryOffset();
    await commits.add([at(0, '2')]);
    expect(send).toHaveBeenCalledTimes(2);
  });
});

describe('byTopic', () => {
  it('groups offsets by topic, the shape kafkajs commits', () => {
    expect(byTopic([at(0, '8'), { topic: 'payments', partition: 2, offset: '3' }, at(1, '4')])).toEqual({
      topics: [
        {
          topic: 'orders',
          partitions: [
            { partition: 0, offset: '8' },
            { partition: 1, offset: '4' },
          ],
        },
        { topic: 'payments', partitions: [{ partition: 2, offset: '3' }] },
      ],
    });
  });
});
