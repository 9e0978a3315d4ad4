import { performance } from 'node:perf_hooks';
import type { Span } from '@opentelemetry/api';
import {
  PipelineMetrics,
  contextFromHeaders,
  endSpan,
  isSampled,
  spanHeaders,
  startSendSpan,
} from '@pipeline/observability';
import type { Message, Producer, RecordMetadata } from 'kafkajs';
import { messageOf } from '../errors/message-of';
import { AdaptiveLinger } from '../batching/adaptive-linger';
import {
  DELETE_OUTBOX_ROWS,
  DELETE_PUBLISHED_AND_SELECT_NEXT,
  SELECT_OUTBOX_BATCH,
  outboxLockKey,
  readBacklog,
  toTopicMessages,
  type OutboxRow,
} from './outbox-table';
import { RelayConnection } from './relay-connection';
import { backoffDelay, sleep } from '../retry/backoff';
import { RelayFailure, attempt } from './relay-failure';
import { createRelayProducer } from './relay-producer';
import { PendingPublished, publishedRecords } from './published-records';
import { WakeSignal } from './wake-signal';
import {
  consoleLogger,
  type OutboxBacklog,
  type OutboxRelayLogger,
  type OutboxRelayOptions,
  type OutboxRelayStats,
} from './outbox-relay.options';

/**
 * Publishes the `outbox` table to Kafka. Per-key order holds end to end because:
 * - writers of one aggregate are serialised by its row lock, so for one key id order is commit
 *   order (a row committing late behind a higher id always belongs to another key);
 * - the relay reads in id order and publishes each topic's rows in that order, one relay at a
 *   time (the advisory lock), and deletes rows only after the broker acknowledged them. Rows
 *   are deleted, not tracked by a high-water mark, so a row committing after a higher id was
 *   published is simply read on the next pass: nothing is skipped;
 * - a crash between the acknowledgement and the DELETE publishes those rows again: delivery is
 *   at-least-once, and consumers' inboxes drop the duplicates by event id.
 */
export class OutboxRelay {
  readonly lockKey: number;
  private readonly batchSize: number;
  private readonly acks: -1 | 1;
  private readonly linger: AdaptiveLinger;
  private readonly pollIntervalMs: number;
  private readonly flushTimeoutMs: number;
  private readonly logger: OutboxRelayLogger;
  private readonly wake = new WakeSignal();
  private readonly stopSignal = new WakeSignal();
  /** The partition kafkajs chose for each message sent, kept only for an `onPublished` hook. */
  private readonly partitions = new WeakMap<Message, number>();
  private readonly pendingPublished: PendingPublished;
  private connection: RelayConnection | undefined;
  private producer: Producer | undefined;
  /** Created but not connected yet: reused across failed connects. */
  private unconnectedProducer: Producer | undefined;
  private leader = false;
  private failures = 0;
  private loop: Promise<void> | undefined;
  private started: Promise<void> | undefined;
  private markStarted: () => void = () => undefined;
  private stopping: Promise<void> | undefined;
  private stopRequested = false;
  private flushDeadline = Number.POSITIVE_INFINITY;
  /**
   * Rows published (acknowledged by the broker) whose DELETE rides with the next SELECT: the next
   * batch's, or the poll's at the latest (pollIntervalMs). A crash before that publishes them
   * again, as a crash between a send and its DELETE always could: consumers' inboxes drop the
   * copies.
   */
  private published: string[] = [];
  private counters: { -readonly [K in keyof OutboxRelayStats]: OutboxRelayStats[K] } = {
    published: 0,
    batches: 0,
    lastBatchSize: 0,
    lastPublishLatencyMs: null,
    failures: 0,
  };

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.acks = options.acks === '1' ? 1 : -1;
    this.linger = new AdaptiveLinger(options.lingerMs ?? 10);
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.pendingPublished = new PendingPublished(options.onPublishedIntervalMs ?? 1_000);
    this.flushTimeoutMs = options.flushTimeoutMs ?? 10_000;
    this.lockKey = options.lockKey ?? outboxLockKey(options.service);
    this.logger = options.logger ?? consoleLogger;
  }

  get stats(): OutboxRelayStats {
    return { ...this.counters };
  }

  isLeader(): boolean {
    return this.leader && this.connection?.alive === true;
  }

  /** Resolves after the first attempt to take the lead (leader or follower, or retrying). */
  start(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.started) return this.started;
    this.started = new Promise<void>((resolve) => (this.markStarted = resolve));
    this.loop = this.run()
      .catch((error: unknown) => {
        this.logger.error(`${this.name}: stopped unexpectedly: ${messageOf(error)}`);
      })
      .finally(() => this.markStarted());
    return this.started;
  }

  /** Stops waking, publishes what is committed, releases the lock, disconnects. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  backlog(): Promise<OutboxBacklog> {
    return readBacklog(
      this.options.databaseUrl,
      `outbox-relay:${this.options.service}:backlog`,
      this.publishedIds(),
    );
  }

  /** Rows this relay published whose DELETE has not been sent yet: not backlog any more. */
  publishedIds(): readonly string[] {
    return this.published;
  }

  private async run(): Promise<void> {
    while (Date.now() < this.flushDeadline) {
      try {
        const connection = await this.connect();
        if (!this.leader) {
          this.leader = await this.acquire(connection);
          this.markStarted();
          if (!this.leader) {
            if (this.stopRequested) return;
            await this.sleep(this.pollIntervalMs);
            continue;
          }
        }
        if (await this.publishUntilIdle(connection)) return;
      } catch (error) {
        this.markStarted();
        await this.recover(error);
      }
    }
    this.logger.warn(
      `${this.name}: flush gave up after ${this.flushTimeoutMs} ms; what is left stays in the outbox`,
    );
  }

  /** Returns `true` once a pass that began after `stop()` was called has emptied the outbox. */
  private async publishUntilIdle(connection: RelayConnection): Promise<boolean> {
    for (;;) {
      const flushing = this.stopRequested;
      this.wake.clear();
      while ((await this.publishBatch(connection)) === this.batchSize) {
        if (Date.now() >= this.flushDeadline) return false;
        await this.reportPublished(connection);
      }
      await this.reportPublished(connection, flushing);
      if (flushing) {
        await this.deletePublished(connection);
        return true;
      }
      const reportDue = this.pendingPublished.dueIn(performance.now());
      const idleFrom = performance.now();
      const notified = await this.wake.wait(Math.min(this.pollIntervalMs, reportDue ?? Infinity));
      // A quiet relay publishes a row at once; a busy one waits for company (AdaptiveLinger).
      const lingerMs = notified ? this.linger.next(performance.now() - idleFrom) : 0;
      if (lingerMs > 0 && !this.stopRequested) await sleep(lingerMs);
    }
  }

  private async deletePublished(connection: RelayConnection): Promise<void> {
    if (this.published.length === 0) return;
    const ids = this.published;
    await attempt('database', () => connection.query(DELETE_OUTBOX_ROWS, [ids]));
    this.published = [];
  }

  private async publishBatch(connection: RelayConnection): Promise<number> {
    const deleting = this.published;
    const rows = await attempt('database', () =>
      deleting.length === 0
        ? connection.query<OutboxRow>(SELECT_OUTBOX_BATCH, [this.batchSize])
        : connection.query<OutboxRow>(DELETE_PUBLISHED_AND_SELECT_NEXT, [this.batchSize, deleting]),
    );
    this.published = [];
    if (rows.length === 0) {
      this.failures = 0;
      return 0;
    }
    if (!connection.alive) throw new RelayFailure('database', new Error('database session lost'));
    const producer = await attempt('broker', () => this.connectProducer());
    const { traced, spans } = this.startSendSpans(rows);
    const topicMessages = toTopicMessages(traced, this.options.topicPrefix);
    const sentAt = performance.now();
    let sent: RecordMetadata[];
    try {
      sent = await attempt('broker', () => producer.sendBatch({ acks: this.acks, topicMessages }));
    } catch (error) {
      for (const span of spans) endSpan(span, { error });
      throw error;
    }
    const latencyMs = performance.now() - sentAt;
    for (const span of spans) endSpan(span);
    this.published = rows.map((row) => row.id);
    this.failures = 0;
    this.counters.published += rows.length;
    this.counters.batches += 1;
    this.counters.lastBatchSize = rows.length;
    this.counters.lastPublishLatencyMs = latencyMs;
    // Published and deleted: nothing below may fail the batch (the relay would drop its session).
    try {
      PipelineMetrics.relayBatchSize.observe(rows.length);
      PipelineMetrics.relayPublishDuration.observe(latencyMs / 1000);
      const perTopic = new Map<string, number>();
      for (const row of rows) perTopic.set(row.topic, (perTopic.get(row.topic) ?? 0) + 1);
      for (const [topic, count] of perTopic) PipelineMetrics.relayPublished.inc({ topic }, count);
    } catch (error) {
      this.logger.error(`${this.name}: recording the published batch threw: ${messageOf(error)}`);
    }
    if (this.options.onPublished) {
      const partitionOf = (message: Message) => this.partitions.get(message);
      const records = publishedRecords(traced, topicMessages, sent, partitionOf, this.options.topicPrefix);
      this.pendingPublished.add(rows.length, records, latencyMs, performance.now());
    }
    return rows.length;
  }

  /** The records published since the last report, once due (or now); a failure is only logged. */
  private async reportPublished(connection: RelayConnection, now = false): Promise<void> {
    const dueIn = this.pendingPublished.dueIn(performance.now());
    if (dueIn === undefined || (dueIn > 0 && !now)) return;
    try {
      await this.options.onPublished?.(this.pendingPublished.take(), connection.sql);
    } catch (error) {
      this.logger.error(
        `${this.name}: onPublished failed (the batch is published all the same): ${messageOf(error)}`,
      );
    }
  }

  /**
   * One `send <topic>` span per row of a sampled trace, continuing the trace stored with the row;
   * the record carries the span's own context so the consumer's span becomes its child. A row of
   * a trace that is not sampled goes out with the trace context it was written with: no span.
   */
  private startSendSpans(rows: readonly OutboxRow[]): { traced: OutboxRow[]; spans: Span[] } {
    const spans: Span[] = [];
    const traced = rows.map((row) => {
      if (!isSampled(traceparentOf(row))) return row;
      const span = startSendSpan(contextFromHeaders(row.headers), {
        topic: (this.options.topicPrefix ?? '') + row.topic,
        eventId: row.event_id,
        eventType: row.type,
        key: row.key,
        tombstone: row.payload === null,
      });
      spans.push(span);
      return { ...row, headers: { ...row.headers, ...spanHeaders(span) } };
    });
    return { traced, spans };
  }

  private async connect(): Promise<RelayConnection> {
    if (this.connection?.alive) return this.connection;
    await this.dropConnection();
    this.connection = await attempt('database', () =>
      RelayConnection.open({
        databaseUrl: this.options.databaseUrl,
        applicationName: `outbox-relay:${this.options.service}`,
        onNotify: () => this.wake.notify(),
        onLost: (error) => {
          if (this.leader) this.logger.warn(`${this.name}: lost its database session (${error.message})`);
          this.leader = false;
          this.wake.notify();
        },
      }),
    );
    return this.connection;
  }

  private async acquire(connection: RelayConnection): Promise<boolean> {
    if (!(await attempt('database', () => connection.tryLock(this.lockKey)))) return false;
    await attempt('database', () => connection.listen());
    this.logger.log(`${this.name}: leader (advisory lock ${this.lockKey})`);
    this.wake.notify();
    return true;
  }

  private async recover(error: unknown): Promise<void> {
    const failure = error instanceof RelayFailure ? error : new RelayFailure('database', error);
    this.failures += 1;
    this.counters.failures += 1;
    const wait = backoffDelay(this.failures, RELAY_BACKOFF);
    // A database error may mean the session (and the lock with it) is gone: start over from the
    // lock. A broker error keeps the lock and the producer: if the broker did write a batch
    // before failing, the same producer id and sequence numbers let it drop the resend. After
    // repeated failures the producer starts afresh, in case its own state is what fails.
    if (failure.side === 'database') await this.dropConnection();
    else if (this.failures % 3 === 0) await this.dropProducer();
    this.logger.warn(
      `${this.name}: ${failure.side} failure (${failure.message}); rows stay in the outbox, retry in ${wait} ms`,
    );
    await this.sleep(wait);
  }

  private async shutdown(): Promise<void> {
    this.stopRequested = true;
    this.flushDeadline = Date.now() + this.flushTimeoutMs;
    this.stopSignal.notify();
    this.wake.notify();
    await this.loop;
    const wasLeader = this.leader;
    await this.dropConnection();
    await this.dropProducer();
    if (wasLeader) this.logger.log(`${this.name}: stopped, lock released`);
  }

  private async connectProducer(): Promise<Producer> {
    if (this.producer) return this.producer;
    const onPartition = this.options.onPublished
      ? (message: Message, partition: number) => void this.partitions.set(message, partition)
      : undefined;
    this.unconnectedProducer ??= createRelayProducer(this.options.kafka, this.acks === -1, onPartition);
    await this.unconnectedProducer.connect();
    this.producer = this.unconnectedProducer;
    this.unconnectedProducer = undefined;
    return this.producer;
  }

  private async dropProducer(): Promise<void> {
    const producer = this.producer ?? this.unconnectedProducer;
    this.producer = this.unconnectedProducer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }

  private async dropConnection(): Promise<void> {
    const connection = this.connection;
    const wasLeader = this.leader;
    this.connection = undefined;
    this.leader = false;
    await connection?.close(wasLeader ? this.lockKey : undefined);
  }

  /** Waits `ms`, cut short by `stop()`; while stopping, never past the flush deadline. */
  private async sleep(ms: number): Promise<void> {
    if (this.stopRequested) await sleep(Math.max(0, Math.min(ms, this.flushDeadline - Date.now())));
    else await this.stopSignal.wait(ms);
  }

  private get name(): string {
    return `outbox relay (${this.options.service})`;
  }
}

/** After a failed read or send: 100 ms doubling, capped at 5 s. */
const RELAY_BACKOFF = { attempts: Number.POSITIVE_INFINITY, initialBackoffMs: 100, maxBackoffMs: 5_000 };

const traceparentOf = (row: OutboxRow): string | undefined => {
  const value = row.headers?.['traceparent'];
  return typeof value === 'string' ? value : undefined;
};
