import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { PipelineMetrics, beforeScrape } from '@pipeline/observability';
import { BatchConsumer } from '../batch/batch-consumer';
import { DeadLetterPublisher } from '../dead-letters/dead-letter';
import { SupervisedConsumer } from '../fetch/supervised-consumer';
import { HandlerRegistry, type ProcessingHooks } from '../handlers/event-handlers';
import { batchTransactionsOver } from '../transaction/batch-transaction';
import { ConsumerLagReader } from '../health/consumer-lag';
import {
  emptyCounters,
  type ConsumerCounters,
  type ConsumerState,
  type ConsumerStatus,
} from '../events/consumer-stats';
import { ConsumerLiveness, type CrashStreak, type PartitionProgress } from '../health/liveness';
import {
  resolveServerOptions,
  type KafkaEventServerOptions,
  type ResolvedServerOptions,
} from './kafka-event-server.options';

type KafkaEventServerEvents = {
  /** The consumer crashed; it is restarted with backoff and unhealthy until it rejoins. */
  crash: (error: Error) => void;
};

/** The transport id Nest's processing hooks (tracing, metrics) see for these handlers. */
export const KAFKA_EVENT_TRANSPORT = Symbol.for('pipeline.kafka-events');

/**
 * Nest transport strategy over kafkajs. It wires the parts together when it is built and is
 * entered again only for start, stop, status and group events, never for a record: the parts
 * call each other directly. The path of a record, top to bottom:
 * 1. SupervisedConsumer: one kafkajs consumer (one group per service, its dead-letter topic
 *    included), rebuilt with backoff when kafkajs gives up on it; it owns the offset commits.
 * 2. BatchConsumer: triages and queues what kafkajs hands over, so the next fetch runs while a
 *    transaction does; one transaction at a time over what waits (`settle`: bisected on
 *    failure), then dead letters, then the durable offsets.
 * 3. runBatchTransaction: inbox claim, the handlers (planHandlerCalls), outbox, COMMIT.
 * 4. The handlers: `@EventBatchPattern` (a list per call) or `@EventPattern` (one event per call).
 * Delivery is at-least-once; effects apply once per group because the inbox rows, the effects and
 * the outgoing events commit together and offsets are committed only after that.
 */
export class KafkaEventServer
  extends Server<KafkaEventServerEvents, ConsumerState>
  implements CustomTransportStrategy
{
  override transportId = KAFKA_EVENT_TRANSPORT;
  readonly counters: ConsumerCounters = emptyCounters();
  /** Which assigned partitions lag without progress (liveness). */
  readonly progress: PartitionProgress;
  /** The consumer's crashes in a row without progress (liveness). */
  readonly crashes: CrashStreak;
  private readonly options: ResolvedServerOptions;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly main: SupervisedConsumer;
  private readonly lag: ConsumerLagReader;
  private readonly batches: BatchConsumer;
  private readonly crashListeners: KafkaEventServerEvents['crash'][] = [];
  // Nest keeps its processing hooks in protected fields of this server; the registry reads them
  // at every handler call.
  private readonly registry = new HandlerRegistry(this as unknown as ProcessingHooks, KAFKA_EVENT_TRANSPORT);
  private unregisterLag: (() => void) | undefined;
  private lagRead: Promise<void> | undefined;

  constructor(options: KafkaEventServerOptions) {
    super();
    const resolved = resolveServerOptions(options);
    this.options = resolved;
    const { kafka, groupId, logger, pool, source, deadLetterTopic } = resolved;
    // Longer than the longest restart backoff: a crash loop's crashes are never that far apart.
    const liveness = new ConsumerLiveness(Math.max(2 * resolved.restartBackoff.maxBackoffMs, 60_000));
    this.progress = liveness.partitions;
    this.crashes = liveness.crashes;
    this.deadLetters = new DeadLetterPublisher(kafka, deadLetterTopic, groupId, resolved.compression);
    const onLag = (topic: string, partition: number, lag: number) =>
      this.progress.lag(topic, partition, this.main.assignment[topic]?.includes(partition) ? lag : 0);
    this.lag = new ConsumerLagReader(kafka, groupId, resolved.topics, resolved.admin, onLag);
    this.main = new SupervisedConsumer({
      kafka,
      config: {
        groupId,
        sessionTimeout: resolved.sessionTimeoutMs,
        heartbeatInterval: resolved.heartbeatIntervalMs,
        ...(resolved.rebalanceTimeoutMs === undefined
          ? {}
          : { rebalanceTimeout: resolved.rebalanceTimeoutMs }),
        minBytes: resolved.fetchMinBytes,
        maxWaitTimeInMs: resolved.fetchMaxWaitMs,
        maxBytesPerPartition: resolved.fetchMaxBytesPerPartition,
        maxBytes: resolved.fetchMaxBytes,
        ...(resolved.kafkaRetry === undefined ? {} : { retry: resolved.kafkaRetry }),
      },
      topics: resolved.logDeadLetters ? [...resolved.topics, deadLetterTopic] : resolved.topics,
      fromBeginning: resolved.fromBeginning,
      partitionsConsumedConcurrently: resolved.partitionsConsumedConcurrently,
      logger,
      restartBackoff: resolved.restartBackoff,
      commitIntervalMs: resolved.commitIntervalMs,
      onJoin: (owns) => this.batches.reset(owns),
      onCrash: (error) => {
        this.batches.reset(() => false);
        this.crashes.crashed(error);
        this._status$.next(this.main.state);
        // One listener that throws must not keep the others from hearing of the crash.
        for (const listener of this.crashListeners) {
          try {
            listener(error);
          } catch (listenerError) {
            logger.error(`crash listener failed: ${String(listenerError)}`);
          }
        }
      },
      onRestart: () => {
        this.counters.restarts += 1;
        PipelineMetrics.consumerRestarts.inc();
      },
      onSkipped: (topic, partition, lastOffset) => {
        this.batches.skipped(topic, partition, lastOffset);
        this.progress.attempted(topic, partition);
      },
    });
    // What runs per record is handed over as it is, never wrapped in a closure of this file.
    this.batches = new BatchConsumer({
      contracts: resolved.contracts,
      deadLetters: this.deadLetters,
      deadLetterTopic,
      counters: this.counters,
      logger,
      retry: resolved.retry,
      maxEventsPerTransaction: resolved.maxEventsPerTransaction,
      busyLingerMs: resolved.busyLingerMs,
      commits: this.main.commits,
      run: batchTransactionsOver({
        pool,
        consumer: groupId,
        source,
        counters: this.counters,
        logger,
        handlers: this.registry,
      }),
      hasHandler: this.registry.has,
      pause: this.main.pause,
      resume: this.main.resume,
      crash: this.main.fail,
      undecodableBatches: resolved.undecodableBatches,
      progressed: liveness.progressed,
    });
    this.main.handOverTo(this.batches.eachBatch);
  }

  /** Called by Nest after the handlers are registered: connects and starts consuming. */
  listen(callback: (error?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  /** Lets the transaction in hand finish, commits what is durable, then leaves the group. */
  async close(): Promise<void> {
    this._status$.next('stopping');
    this.unregisterLag?.();
    this.unregisterLag = undefined;
    await this.batches.stop();
    await this.main.stop();
    await Promise.all([this.deadLetters.disconnect(), this.lag.close()]);
    this._status$.next('stopped');
  }

  /** State, health and counters (Nest's own `status` is the observable of state changes). */
  consumerStatus(): ConsumerStatus {
    return {
      state: this.main.state,
      healthy: this.main.healthy,
      groupId: this.options.groupId,
      topics: this.options.topics,
      ...(this.main.lastError === undefined ? {} : { lastError: this.main.lastError }),
      counters: { ...this.counters, skippedByType: { ...this.counters.skippedByType } },
    };
  }

  /** Partitions by topic this member was assigned at its last group join. */
  assignment(): Record<string, number[]> {
    return { ...this.main.assignment };
  }

  /** Reads each partition's lag from the broker (the lag gauges, liveness); one read at a time. */
  readLag(): Promise<void> {
    this.lagRead ??= this.lag.refresh().finally(() => (this.lagRead = undefined));
    return this.lagRead;
  }

  on<EventKey extends keyof KafkaEventServerEvents>(
    event: EventKey,
    callback: KafkaEventServerEvents[EventKey],
  ): void {
    if (event === 'crash') this.crashListeners.push(callback);
  }

  unwrap<T>(): T {
    return this.main.instance as T;
  }

  private async start(): Promise<void> {
    this._status$.next('starting');
    this.registry.load(this.getHandlers());
    await this.main.start();
    this.unregisterLag = beforeScrape(() => this.readLag());
    this._status$.next('running');
    const handled = this.registry.types;
    this.options.logger.log(
      `consuming ${this.options.topics.join(', ')} as ${this.options.groupId}; handling ${handled.join(', ') || 'nothing'}`,
    );
  }
}
