import type { LoggerService } from '@nestjs/common';
import type { Consumer, ConsumerConfig, ConsumerRunConfig, IMemberAssignment, Kafka } from 'kafkajs';
import { backoffDelay } from '../retry/backoff';
import type { ConsumerState } from '../events/consumer-stats';

export interface SupervisedConsumerOptions {
  readonly kafka: Kafka;
  readonly config: ConsumerConfig;
  readonly topics: readonly string[];
  readonly fromBeginning: boolean;
  readonly runConfig: ConsumerRunConfig;
  readonly logger: LoggerService;
  readonly restartBackoff: { readonly initialMs: number; readonly maxMs: number };
  onCrash?(error: Error): void;
  /** The member (re)joined its group with this assignment. */
  onJoin?(assignment: IMemberAssignment): void;
  onRestart?(): void;
}

/**
 * A kafkajs consumer that does not die silently. When kafkajs gives up on it (`restart: false` on
 * CRASH, which KafkaEventServer makes the rule) the consumer is rebuilt here, with backoff, until
 * it runs again or `stop()` is called. `healthy` is false from the crash until the member has
 * rejoined its group, so a readiness check can report the gap.
 */
export class SupervisedConsumer {
  private consumer: Consumer | undefined;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartAttempt = 0;
  private joined = false;
  private currentState: ConsumerState = 'stopped';
  private latestAssignment: IMemberAssignment = {};
  lastError: string | undefined;

  constructor(private readonly options: SupervisedConsumerOptions) {}

  get state(): ConsumerState {
    return this.currentState;
  }

  /** Running and a member of its group: what readiness reports. */
  get healthy(): boolean {
    return this.currentState === 'running' && this.joined;
  }

  /** Partitions by topic assigned at the last group join. */
  get assignment(): IMemberAssignment {
    return this.latestAssignment;
  }

  get instance(): Consumer | undefined {
    return this.consumer;
  }

  async start(): Promise<void> {
    this.stopping = false;
    await this.launch();
  }

  /** Connects, subscribes and runs a fresh kafkajs consumer, unless stop() was called meanwhile. */
  private async launch(): Promise<void> {
    this.currentState = 'starting';
    const consumer = this.options.kafka.consumer(this.options.config);
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      this.joined = true;
      this.restartAttempt = 0;
      this.latestAssignment = event.payload.memberAssignment;
      this.options.onJoin?.(event.payload.memberAssignment);
    });
    consumer.on(consumer.events.CRASH, (event) => this.crashed(event.payload.error, event.payload.restart));
    await consumer.connect();
    await consumer.subscribe({ topics: [...this.options.topics], fromBeginning: this.options.fromBeginning });
    // stop() may have run during the awaits above: never join the group after a shutdown.
    if (this.stopping) {
      await consumer.disconnect();
      return;
    }
    await consumer.run(this.options.runConfig);
    this.currentState = 'running';
  }

  /** Stops fetching, waits for the batch in hand, leaves the group and disconnects. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.currentState = 'stopping';
    await this.consumer?.disconnect();
    this.joined = false;
    this.currentState = 'stopped';
  }

  private crashed(error: Error, restartedByKafkajs: boolean): void {
    this.joined = false;
    this.lastError = error.message;
    // kafkajs restarts the consumer itself when restart is true: only its give-ups are ours.
    if (!restartedByKafkajs && !this.stopping) {
      this.options.logger.error(
        `consumer group ${this.options.config.groupId} crashed and kafkajs gave up: ${error.message}`,
      );
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
    this.currentState = 'restarting';
    this.restartAttempt += 1;
    const { initialMs, maxMs } = this.options.restartBackoff;
    const delay = backoffDelay(this.restartAttempt, { initialBackoffMs: initialMs, maxBackoffMs: maxMs });
    this.restartTimer = setTimeout(() => void this.restart(), delay);
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.consumer?.disconnect().catch(() => undefined);
      if (this.stopping) return;
      this.options.logger.log(
        `restarting consumer group ${this.options.config.groupId} (attempt ${this.restartAttempt})`,
      );
      this.options.onRestart?.();
      await this.launch();
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.options.logger.error(
        `restart of consumer group ${this.options.config.groupId} failed: ${this.lastError}`,
      );
      if (!this.stopping) this.scheduleRestart();
    }
  }
}
