import type { LoggerService } from '@nestjs/common';
import type { Consumer, ConsumerConfig, EachBatchPayload, IMemberAssignment, Kafka, Offsets } from 'kafkajs';
import type { TopicPartitionOffsetAndMetadata as Offset } from 'kafkajs';
import { OffsetCommits, byTopic } from './offset-commits';
import { messageOf } from '../errors/message-of';
import type { ConsumerState } from '../events/consumer-stats';
import { backoffDelay } from '../retry/backoff';

export interface SupervisedConsumerOptions {
  readonly kafka: Kafka;
  readonly config: ConsumerConfig;
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  /** kafkajs workers; at least the partitions of a fetch, so they all reach one transaction. */
  readonly partitionsConsumedConcurrently: number;
  readonly logger: LoggerService;
  readonly restartBackoff: { readonly initialMs: number; readonly maxMs: number };
  /** At most one OffsetCommit request per this interval (OffsetCommits). */
  readonly commitIntervalMs: number;
  /** kafkajs's `eachBatch` (BatchConsumer's): called once per partition of a fetch. */
  eachBatch(payload: EachBatchPayload): Promise<void>;
  onCrash?(error: Error): void;
  onRestart?(): void;
}

/**
 * The service's one kafkajs consumer (one group, its dead-letter topic included), its pauses and
 * the offsets it owns (OffsetCommits, below). When kafkajs gives up on it (`restartOnFailure` is
 * always false here: one restart path, so every crash is visible in health and counters) it is
 * rebuilt with backoff until it runs again or `stop()` is called; `healthy` is false from the
 * crash until the member has rejoined its group, so readiness can report the gap.
 */
export class SupervisedConsumer {
  /** Offsets of what is durable, committed coalesced through the latest fetch. */
  readonly commits: OffsetCommits;
  state: ConsumerState = 'stopped';
  /** Partitions by topic assigned at the last group join. */
  assignment: IMemberAssignment = {};
  lastError: string | undefined;
  instance: Consumer | undefined;
  private joined = false;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartAttempt = 0;
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  /** The latest fetch's commit: unlike `consumer.commitOffsets`, it works until the member has left. */
  private commitThroughGroup: ((offsets: Offsets) => Promise<void>) | undefined;

  constructor(private readonly options: SupervisedConsumerOptions) {
    const commit = (offsets: Offset[]) =>
      this.commitThroughGroup?.(byTopic(offsets)) ?? Promise.reject(new Error('no fetch to commit through'));
    this.commits = new OffsetCommits(commit, options.commitIntervalMs, (error) => {
      options.logger.warn(`offset commit failed, kept for the next one: ${messageOf(error)}`);
    });
  }

  /** Running and a member of its group: what readiness reports. */
  get healthy(): boolean {
    return this.state === 'running' && this.joined;
  }

  private get group(): string {
    return this.options.config.groupId;
  }

  start(): Promise<void> {
    this.stopping = false;
    return this.launch();
  }

  /** Commits what is durable, stops fetching, waits for the batch in hand, leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    for (const timer of this.resumeTimers) clearTimeout(timer);
    this.resumeTimers.clear();
    this.state = 'stopping';
    // What is durable is committed before the member leaves: now, and the batch in hand at once.
    this.commits.commitEveryOffset();
    await this.commits.flush().catch((error: unknown) => {
      this.options.logger.warn(`offset commit at stop failed: ${messageOf(error)}`);
    });
    await this.instance?.disconnect();
    this.joined = false;
    this.state = 'stopped';
  }

  /** Stops fetching a partition for `ms`, then fetches it again from its resolved offset. */
  pause(topic: string, partition: number, ms: number): void {
    const consumer = this.instance;
    consumer?.pause([{ topic, partitions: [partition] }]);
    const timer = setTimeout(() => {
      this.resumeTimers.delete(timer);
      consumer?.resume([{ topic, partitions: [partition] }]);
    }, ms);
    this.resumeTimers.add(timer);
  }

  /** Connects, subscribes and runs a fresh kafkajs consumer, unless stop() was called meanwhile. */
  private async launch(): Promise<void> {
    this.state = 'starting';
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
      this.commits.retain((topic, partition) => memberAssignment[topic]?.includes(partition) === true);
    });
    consumer.on(consumer.events.CRASH, (event) => this.crashed(event.payload.error, event.payload.restart));
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning });
    // stop() may have run during the awaits above: never join the group after a shutdown.
    if (this.stopping) return consumer.disconnect();
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently,
      eachBatch: (payload) => {
        this.commitThroughGroup = (offsets) => payload.commitOffsetsIfNecessary(offsets);
        return this.options.eachBatch(payload);
      },
    });
    this.state = 'running';
  }

  private crashed(error: Error, restartedByKafkajs: boolean): void {
    this.joined = false;
    this.lastError = error.message;
    // The crashed member is gone: its successor fetches from the last commit.
    this.commits.clear();
    // kafkajs restarts the consumer itself when restart is true: only its give-ups are ours.
    if (!restartedByKafkajs && !this.stopping) {
      this.options.logger.error(`consumer group ${this.group} crashed and kafkajs gave up: ${error.message}`);
      this.scheduleRestart();
    }
    // Listeners come last: one that throws must not keep the consumer from restarting.
    try {
      this.options.onCrash?.(error);
    } catch (listenerError) {
      this.options.logger.error(`crash listener failed: ${String(listenerError)}`);
    }
  }

  private scheduleRestart(): void {
    this.state = 'restarting';
    this.restartAttempt += 1;
    const { initialMs, maxMs } = this.options.restartBackoff;
    const delay = backoffDelay(this.restartAttempt, { initialBackoffMs: initialMs, maxBackoffMs: maxMs });
    this.restartTimer = setTimeout(() => void this.restart(), delay);
  }

  private async restart(): Promise<void> {
    const { group } = this;
    try {
      await this.instance?.disconnect().catch(() => undefined);
      if (this.stopping) return;
      this.options.logger.log(`restarting consumer group ${group} (attempt ${this.restartAttempt})`);
      this.options.onRestart?.();
      await this.launch();
    } catch (error) {
      this.lastError = messageOf(error);
      this.options.logger.error(`restart of consumer group ${group} failed: ${this.lastError}`);
      if (!this.stopping) this.scheduleRestart();
    }
  }
}
