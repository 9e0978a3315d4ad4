import { PipelineMetrics } from '@pipeline/observability';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { beforeScrape } from '@pipeline/observability';
import type { Consumer } from 'kafkajs';
import { isObservable, lastValueFrom } from 'rxjs';
import type { SqlClient } from '../database/sql-client';
import { BatchProcessor } from './batch-processor';
import { ConsumerLagReader } from './consumer-lag';
import {
  emptyCounters,
  type ConsumerCounters,
  type ConsumerState,
  type ConsumerStatus,
} from './consumer-stats';
import { DeadLetterPublisher } from './dead-letter';
import { logDeadLetter } from './dead-letter-log';
import type { EventContext } from './event-context';
import { EventRunner } from './event-runner';
import {
  resolveServerOptions,
  type KafkaEventServerOptions,
  type ResolvedServerOptions,
} from './kafka-event-server.options';
import { unwrapHandlerError } from './event-error.filter';
import { SupervisedConsumer } from './supervised-consumer';

type KafkaEventServerEvents = {
  /** The main consumer crashed; it is restarted with backoff and unhealthy until it rejoins. */
  crash: (error: Error) => void;
};

/** The transport id Nest's processing hooks (tracing, metrics) see for these handlers. */
export const KAFKA_EVENT_TRANSPORT = Symbol.for('pipeline.kafka-events');

export interface KafkaEventServerParts {
  readonly consumer: Consumer | undefined;
  readonly deadLetterLog: Consumer | undefined;
}

/**
 * Nest transport strategy over kafkajs: `@EventPattern('<ce_type>')` handlers run inside the
 * inbox transaction of the record that carried the event. Delivery is at-least-once; effects
 * are applied once per consumer group because the inbox row, the effects and the outgoing
 * events commit together and offsets are committed only after that.
 */
export class KafkaEventServer<Tx extends SqlClient = SqlClient>
  extends Server<KafkaEventServerEvents, ConsumerState>
  implements CustomTransportStrategy
{
  override transportId = KAFKA_EVENT_TRANSPORT;
  readonly counters: ConsumerCounters = emptyCounters();
  private readonly options: ResolvedServerOptions<Tx>;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly main: SupervisedConsumer;
  private readonly deadLetterLog: SupervisedConsumer | undefined;
  private readonly crashListeners: KafkaEventServerEvents['crash'][] = [];
  private readonly lag: ConsumerLagReader;
  private unregisterLag: (() => void) | undefined;

  constructor(options: KafkaEventServerOptions<Tx>) {
    super();
    const resolved = resolveServerOptions(options);
    this.options = resolved;
    const { kafka, groupId, logger } = resolved;
    this.deadLetters = new DeadLetterPublisher(kafka, resolved.deadLetterTopic, groupId);
    this.lag = new ConsumerLagReader(kafka, groupId, resolved.topics);
    const runner = new EventRunner({
      consumer: groupId,
      source: resolved.source,
      database: resolved.database,
      retry: resolved.retry,
      transactionTimeoutMs: resolved.transactionTimeoutMs,
      heartbeatIntervalMs: resolved.heartbeatInterval,
      counters: this.counters,
      logger,
      invoke: (type, payload, context) => this.invoke(type, payload, context),
    });
    const processor = new BatchProcessor({
      runner,
      contracts: resolved.contracts,
      deadLetters: this.deadLetters,
      counters: this.counters,
      logger,
      heartbeatIntervalMs: resolved.heartbeatInterval,
      maxRecordsPerTransaction: resolved.maxRecordsPerTransaction,
      hasHandler: (type) => this.handlerFor(type) !== null,
    });
    const consumerConfig = {
      sessionTimeout: resolved.sessionTimeout,
      heartbeatInterval: resolved.heartbeatInterval,
      ...(resolved.rebalanceTimeout === undefined ? {} : { rebalanceTimeout: resolved.rebalanceTimeout }),
      allowAutoTopicCreation: false,
      // One restart path, not two: kafkajs never restarts a crashed consumer itself, the
      // supervisor does, so every crash is visible in health and counters.
      retry: { ...resolved.kafkaRetry, restartOnFailure: () => Promise.resolve(false) },
    };
    this.main = new SupervisedConsumer({
      kafka,
      config: { groupId, ...consumerConfig },
      topics: resolved.topics,
      fromBeginning: resolved.fromBeginning,
      logger,
      restartBackoff: resolved.restartBackoff,
      runConfig: {
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: resolved.partitionsConsumedConcurrently,
        eachBatch: (payload) => processor.process(payload),
      },
      onCrash: (error) => {
        this._status$.next(this.main.state);
        for (const listener of this.crashListeners) listener(error);
      },
      onRestart: () => {
        this.counters.restarts += 1;
        PipelineMetrics.consumerRestarts.inc();
      },
    });
    this.deadLetterLog = resolved.logDeadLetters
      ? new SupervisedConsumer({
          kafka,
          config: { groupId: `${groupId}.dead-letter-log`, ...consumerConfig },
          topics: [resolved.deadLetterTopic],
          fromBeginning: true,
          logger,
          restartBackoff: resolved.restartBackoff,
          runConfig: { eachMessage: (payload) => logDeadLetter(logger, payload) },
        })
      : undefined;
  }

  /** Called by Nest after the handlers are registered: connects and starts consuming. */
  listen(callback: (error?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  /** Stops fetching, lets the batch in hand finish and commit, then disconnects. */
  async close(): Promise<void> {
    this._status$.next('stopping');
    this.unregisterLag?.();
    this.unregisterLag = undefined;
    await Promise.all([this.main.stop(), this.deadLetterLog?.stop()]);
    await Promise.all([this.deadLetters.disconnect(), this.lag.close()]);
    this._status$.next('stopped');
  }

  /** Readiness: the main consumer runs and is a member of its group. */
  isHealthy(): boolean {
    return this.main.healthy;
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

  on<EventKey extends keyof KafkaEventServerEvents>(
    event: EventKey,
    callback: KafkaEventServerEvents[EventKey],
  ): void {
    if (event === 'crash') this.crashListeners.push(callback);
  }

  unwrap<T>(): T {
    const parts: KafkaEventServerParts = {
      consumer: this.main.instance,
      deadLetterLog: this.deadLetterLog?.instance,
    };
    return parts as T;
  }

  private async start(): Promise<void> {
    this._status$.next('starting');
    await this.deadLetters.connect();
    await Promise.all([this.main.start(), this.deadLetterLog?.start()]);
    this.unregisterLag = beforeScrape(() => this.lag.refresh());
    this._status$.next('running');
    const handled = [...this.getHandlers().entries()]
      .filter(([, handler]) => handler.isEventHandler)
      .map(([type]) => type);
    this.options.logger.log(
      `consuming ${this.options.topics.join(', ')} as ${this.options.groupId}; handling ${handled.join(', ') || 'nothing'}`,
    );
  }

  private handlerFor(type: string) {
    const handler = this.getHandlerByPattern(type);
    return handler?.isEventHandler ? handler : null;
  }

  private async invoke(type: string, payload: unknown, context: EventContext): Promise<void> {
    const handler = this.handlerFor(type);
    if (handler === null) throw new Error(`no @EventPattern handler for "${type}"`);
    await new Promise<void>((resolve, reject) => {
      this.onProcessingStartHook(KAFKA_EVENT_TRANSPORT, context, async () => {
        try {
          const result: unknown = await handler(payload, context);
          if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
          resolve();
        } catch (error) {
          reject(unwrapHandlerError(error));
        } finally {
          this.onProcessingEndHook?.(KAFKA_EVENT_TRANSPORT, context);
        }
      });
    });
  }
}
