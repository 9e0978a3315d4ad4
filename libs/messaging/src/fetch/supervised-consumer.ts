import { messageOf } from '@pipeline/observability';
import type { LoggerService } from '@nestjs/common';
import type {
  Consumer,
  ConsumerConfig,
  ConsumerEndBatchProcessEvent,
  EachBatchPayload,
  IMemberAssignment,
  Kafka,
  Offsets,
} from 'kafkajs';
import type { TopicPartitionOffsetAndMetadata as Offset } from 'kafkajs';
import type { ConsumerState } from '../events/consumer-stats';
import { backoffDelay } from '../retry/backoff';

type BatchEnd = ConsumerEndBatchProcessEvent['payload'];

export interface SupervisedConsumerOptions {
  readonly kafka: Kafka;
  readonly config: ConsumerConfig;
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  /** At least the partitions of a fetch, so they all reach one transaction. */
  readonly partitionsConsumedConcurrently: number;
  readonly logger: LoggerService;
  readonly restartBackoff: { readonly initialBackoffMs: number; readonly maxBackoffMs: number };
  readonly commitIntervalMs: number;
  /** The member joined its group: what it owns now (kafkajs fetches from the committed offsets). */
  onJoin?(owns: (topic: string, partition: number) => boolean): void;
  onCrash?(error: Error): void;
  onRestart?(): void;
  /** kafkajs moved past records it never handed to `eachBatch` (see `skippedByKafkajs`). */
  onSkipped?(topic: string, partition: number, lastOffset: string): void;
}

/**
 * The service's one kafkajs consumer (its group, its dead-letter topic included), its pauses and
 * the offsets it owns (OffsetCommits, below). When kafkajs gives up on it (`restartOnFailure` is
 * always false: one restart path, every crash visible in health and counters) it is rebuilt with
 * backoff until it runs again or `stop()` is called; `healthy` is false until it has rejoined.
 */
export class SupervisedConsumer {
  /** Offsets of what is durable, committed coalesced through the latest fetch. */
  readonly commits: OffsetCommits;
  state: ConsumerState = 'stopped';
  assignment: IMemberAssignment = {};
  lastError: string | undefined;
  instance: Consumer | undefined;
  private joined = false;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartAttempt = 0;
  /** BatchConsumer's `eachBatch`, called once per partition of a fetch (`handOverTo`). */
  private eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  /** The latest fetch's commit: unlike `consumer.commitOffsets`, it works until the member has left. */
  private commitThroughGroup: ((offsets: Offsets) => Promise<void>) | undefined;

  constructor(private readonly options: SupervisedConsumerOptions) {
    const commit = (offsets: Offset[]) =>
      this.commitThroughGroup?.(byTopic(offsets)) ??
      this.instance?.commitOffsets(offsets) ??
      Promise.reject(new Error('no consumer to commit through'));
    this.commits = new OffsetCommits(commit, options.commitIntervalMs, (error) => {
      options.logger.warn(`offset commit failed, kept for the next one: ${messageOf(error)}`);
    });
  }

  /** Running and a member of its group: what readiness reports. */
  get healthy(): boolean {
    return this.state === 'running' && this.joined;
  }

  /**
   * Stops fetching, waits for the batch in hand and leaves the group. What is durable is committed
   * before the member leaves: now, and the batch in hand's at once.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.state = 'stopping';
    clearTimeout(this.restartTimer);
    this.commits.commitEveryOffset();
    await this.commits.flush().catch((error: unknown) => {
      this.options.logger.warn(`offset commit at stop failed: ${messageOf(error)}`);
    });
    await this.instance?.disconnect();
    this.joined = false;
    this.state = 'stopped';
  }

  /** Where kafkajs's fetches go from the next start on: set once, when the parts are wired. */
  handOverTo(eachBatch: (payload: EachBatchPayload) => Promise<void>): void {
    this.eachBatch = eachBatch;
  }

  // pause, resume and fail are properties, so the consumer that calls them holds them as they are.

  /** Stops fetching a partition (a fetch in flight drops its records: they are fetched again). */
  readonly pause = (topic: string, partition: number): void => {
    this.instance?.pause([{ topic, partitions: [partition] }]);
  };

  /** Fetches a paused partition again, from after what was handed over. */
  readonly resume = (topic: string, partition: number): void => {
    this.instance?.resume([{ topic, partitions: [partition] }]);
  };

  /**
   * The consumer cannot go on (BatchConsumer: the database stays down, a dead letter cannot be
   * written): it leaves its group now and is rebuilt with backoff, as when kafkajs gives up.
   */
  readonly fail = (error: Error): void => {
    const consumer = this.instance;
    if (this.stopping || this.state !== 'running' || consumer === undefined) return;
    this.crashed(error, false);
    void consumer.disconnect().catch(() => undefined);
  };

  /** Connects, subscribes and runs a fresh kafkajs consumer, unless stop() is called meanwhile. */
  async start(): Promise<void> {
    const { eachBatch } = this;
    if (eachBatch === undefined) throw new Error('SupervisedConsumer: handOverTo() must come before start()');
    this.stopping = false;
    this.state = 'starting';
    // The previous instance's group session is gone: commits wait for this one's first fetch.
    this.commitThroughGroup = undefined;
    const { kafka, config, topics, fromBeginning } = this.options;
    const consumer = kafka.consumer({
      ...config,
      allowAutoTopicCreation: false,
      retry: { ...config.retry, restartOnFailure: () => Promise.resolve(false) },
    });
    this.instance = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload: { memberAssignment } }) => {
      this.joined = true;
      this.restartAttempt = 0;
      this.assignment = memberAssignment;
      const owns = (topic: string, partition: number) =>
        memberAssignment[topic]?.includes(partition) === true;
      this.commits.retain(owns);
      this.options.onJoin?.(owns);
    });
    // Before the member rejoins, what is durable is committed while it still owns its partitions.
    consumer.on(consumer.events.REBALANCING, () => {
      this.commits.flush().catch((error: unknown) => {
        this.options.logger.warn(`offset commit before a rebalance failed: ${messageOf(error)}`);
      });
    });
    consumer.on(consumer.events.CRASH, (event) => this.crashed(event.payload.error, event.payload.restart));
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => this.skippedByKafkajs(payload));
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning });
    // stop() may have run during the awaits above: never join the group after a shutdown.
    if (this.stopping) return consumer.disconnect();
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently,
      eachBatch: (payload) => {
        // A consumer that failed is leaving its group: what it still fetches is not ours.
        const live = this.state === 'running' || this.state === 'starting';
        if (consumer !== this.instance || !live) return Promise.resolve();
        this.commitThroughGroup = (offsets) => payload.commitOffsetsIfNecessary(offsets);
        return eachBatch(payload);
      },
    });
    if (this.instance === consumer && this.state === 'starting') this.state = 'running';
  }

  /**
   * A fetched batch that held only control records (transaction markers) or the records of an
   * aborted transaction never reaches `eachBatch`: kafkajs moves its own position past it, and
   * with autoCommit off nothing would commit that. At the end of a partition the group's offset
   * would stay behind them for good: lag that never drains, and liveness failing on it. Nothing
   * in such a batch is ours to apply, so its offsets are durable as they are.
   */
  private skippedByKafkajs({ topic, partition, batchSize, lastOffset }: BatchEnd): void {
    if (batchSize === 0) this.options.onSkipped?.(topic, partition, lastOffset);
  }

  private crashed(error: Error, restartedByKafkajs: boolean): void {
    this.joined = false;
    this.lastError = error.message;
    // The crashed member is gone: its successor fetches from the last commit.
    this.commits.clear();
    this.commitThroughGroup = undefined;
    // kafkajs restarts the consumer itself when restart is true: only its give-ups are ours.
    const { groupId } = this.options.config;
    if (!restartedByKafkajs && !this.stopping) {
      this.options.logger.error(`consumer group ${groupId} crashed and kafkajs gave up: ${error.message}`);
      this.scheduleRestart();
    }
    this.options.onCrash?.(error);
  }

  private scheduleRestart(): void {
    this.state = 'restarting';
    this.restartAttempt += 1;
    const delay = backoffDelay(this.restartAttempt, this.options.restartBackoff);
    this.restartTimer = setTimeout(() => void this.restart(), delay);
  }

  private async restart(): Promise<void> {
    const { groupId: group } = this.options.config;
    try {
      await this.instance?.disconnect().catch(() => undefined);
      if (this.stopping) return;
      this.options.logger.log(`restarting consumer group ${group} (attempt ${this.restartAttempt})`);
      this.options.onRestart?.();
      await this.start();
    } catch (error) {
      this.lastError = messageOf(error);
      this.options.logger.error(`restart of consumer group ${group} failed: ${this.lastError}`);
      if (!this.stopping) this.scheduleRestart();
    }
  }
}

/**
 * Offset commits, coalesced: handed over once what they cover is durable (inbox, effects, outbox,
 * dead letters), at most one OffsetCommit per `intervalMs`, the last by a timer so an idle lag
 * reaches zero. After a crash up to `intervalMs` of records is fetched again and dropped by the
 * inbox; at everyday rates it halves the consumer's requests (one commit per transaction before).
 */
export class OffsetCommits {
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
    if (!current || BigInt(offset.offset) > BigInt(current.offset)) this.pending.set(key, offset);
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
