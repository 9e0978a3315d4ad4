import type { Offsets, TopicPartitionOffsetAndMetadata as Offset } from 'kafkajs';

/**
 * The consumer's offset commits, coalesced: handed over once what they cover is durable (inbox,
 * effects and outbox committed, dead letters acknowledged), at most one OffsetCommit request per
 * `intervalMs`, the last one by a timer so an idle consumer's lag reaches zero. After a crash up to
 * `intervalMs` of records is fetched again and dropped by the inbox; at everyday rates it halves
 * the consumer's requests (one OffsetCommit per transaction before).
 */
export class OffsetCommits {
  /** The next offset to commit, by `topic/partition`. */
  private pending = new Map<string, Offset>();
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** Moves on every new assignment and crash: a commit that failed before it is not retried. */
  private epoch = 0;

  constructor(
    private readonly send: (offsets: Offset[]) => Promise<void>,
    private intervalMs: number,
    private readonly onTimerError: (error: unknown) => void,
  ) {}

  /** Offsets whose records are durable: committed now when the last commit is old enough. */
  async add(offsets: readonly Offset[]): Promise<void> {
    for (const offset of offsets) this.keep(offset);
    if (this.pending.size === 0) return;
    const waitMs = this.lastCommitAt + this.intervalMs - performance.now();
    if (waitMs <= 0) await this.flush();
    else this.timer ??= setTimeout(() => void this.flushByTimer(), waitMs);
  }

  /** Commits what is pending now (stop, rebalance). Rejects when the commit fails. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return this.chain;
    const offsets = [...this.pending.values()];
    this.pending = new Map();
    this.lastCommitAt = performance.now();
    // One request at a time, in order: a later commit never lands before an earlier one.
    const commit = this.chain.then(() => this.send(offsets));
    this.chain = commit.catch(() => undefined);
    const epoch = this.epoch;
    return commit.catch((error: unknown) => {
      // Kept for the next commit, unless the partitions changed hands meanwhile: retried under a
      // new assignment, an old offset could move another member's partition backwards.
      if (epoch === this.epoch) for (const offset of offsets) this.keep(offset);
      throw error;
    });
  }

  /** From now on every offset is committed at once (the consumer is stopping). */
  commitEveryOffset(): void {
    this.intervalMs = 0;
  }

  /** Forgets the offsets of partitions this member no longer owns (a new assignment). */
  retain(owned: (topic: string, partition: number) => boolean): void {
    this.epoch += 1;
    for (const [key, { topic, partition }] of this.pending)
      if (!owned(topic, partition)) this.pending.delete(key);
  }

  /** Forgets everything pending (the consumer is gone: its successor fetches from the last commit). */
  clear(): void {
    this.retain(() => false);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private keep(offset: Offset): void {
    const key = `${offset.topic}/${offset.partition}`;
    const current = this.pending.get(key);
    if (current === undefined || BigInt(offset.offset) > BigInt(current.offset))
      this.pending.set(key, offset);
  }

  private async flushByTimer(): Promise<void> {
    this.timer = undefined;
    try {
      await this.flush();
    } catch (error) {
      this.onTimerError(error);
      // Kept for the next try (a rebalance drops what this member no longer owns).
      if (this.pending.size > 0) this.timer ??= setTimeout(() => void this.flushByTimer(), this.intervalMs);
    }
  }
}

/** The request shape kafkajs commits: offsets grouped by topic. */
export function byTopic(offsets: readonly Offset[]): Offsets {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const { topic, partition, offset } of offsets)
    topics.set(topic, [...(topics.get(topic) ?? []), { partition, offset }]);
  return { topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) };
}
