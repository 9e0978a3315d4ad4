import { performance } from 'node:perf_hooks';
import { deadLetterTopic, type ServiceName } from '@pipeline/contracts';
import type { Message } from 'kafkajs';
import { messageOf } from '@pipeline/observability';
import { type Sql } from '@pipeline/database';
import { toTopicMessages, type OutboxRow } from './outbox-table';
import { attempt } from './relay-failure';
import { RelayProducer, createRelayProducer } from './relay-producer';
import { isTooLarge, relaySends, rowBytes } from './relay-batch';
import { countPublished, sendRows, type Delivery } from './relay-send';
import { countRelayDeadLetter, relayDeadLetter } from './relay-dead-letter';
import { PendingPublished, publishedRecords } from './published-records';
import type { OutboxRelayLogger, OutboxRelayOptions, OutboxRelayStats } from './outbox-relay.options';

/**
 * Throws unless the relay still holds its lock: awaited right before every send. The read of the
 * batch proved it already, so the relay's fence may let the first send go without a statement.
 */
export type Fence = () => Promise<void>;

type Counters = { -readonly [K in keyof OutboxRelayStats]: OutboxRelayStats[K] };

/**
 * Publishes one batch of outbox rows for the relay: in byte-bounded sends, one after the other in
 * id order, each behind the relay's fence; a row no send can carry goes to the dead-letter topic.
 */
export class RelayPublisher {
  readonly counters: Omit<Counters, 'failures'> = {
    published: 0,
    batches: 0,
    lastBatchSize: 0,
    lastPublishLatencyMs: null,
    deadLettered: 0,
  };
  readonly producer: RelayProducer;
  private readonly maxBatchBytes: number;
  private readonly deadLetterTopic: string;
  private readonly prefix: string;
  private readonly pending: PendingPublished;
  /** The partition kafkajs chose for each message sent, kept only for an `onPublished` hook. */
  private readonly partitions = new WeakMap<Message, number>();

  constructor(
    private readonly options: OutboxRelayOptions,
    private readonly delivery: Delivery,
    private readonly logger: OutboxRelayLogger,
    private readonly name: string,
  ) {
    this.maxBatchBytes = options.maxBatchBytes ?? 512 * 1024;
    this.prefix = options.topicPrefix ?? '';
    this.deadLetterTopic =
      options.deadLetterTopic ?? this.prefix + deadLetterTopic(options.service as ServiceName);
    this.pending = new PendingPublished(options.onPublishedIntervalMs ?? 1_000);
    const onPartition = options.onPublished
      ? (message: Message, partition: number) => void this.partitions.set(message, partition)
      : undefined;
    this.producer = new RelayProducer(() => createRelayProducer(options.kafka, onPartition));
  }

  /** Publishes `rows`, adding the id of each row sent or dead-lettered to `done` as it goes. */
  async publish(rows: readonly OutboxRow[], fence: Fence, done: string[]): Promise<void> {
    for (const send of relaySends(rows, this.maxBatchBytes)) {
      if (send.oversizeBytes === undefined) await this.sendOrSplit(send.rows, fence, done);
      else await this.deadLetter(send.rows[0], send.oversizeBytes, fence, done);
    }
  }

  /** Milliseconds until published records are due to `onPublished`; undefined when none wait. */
  reportDueIn(): number | undefined {
    return this.pending.dueIn(performance.now());
  }

  /**
   * The records published since the last report, once due (or now); a failure is only logged.
   * Resolves `true` when the `onPublished` hook ran (on the relay's session, `sql`).
   */
  async report(sql: Sql, now = false): Promise<boolean> {
    const dueIn = this.reportDueIn();
    if (dueIn === undefined || (dueIn > 0 && !now)) return false;
    try {
      await this.options.onPublished?.(this.pending.take(), sql);
    } catch (error) {
      this.logger.error(
        `${this.name}: onPublished failed (the batch is published all the same): ${messageOf(error)}`,
      );
    }
    return true;
  }

  /** A send the broker refuses as too large goes again row by row; a lone row is dead-lettered. */
  private async sendOrSplit(rows: readonly OutboxRow[], fence: Fence, done: string[]): Promise<void> {
    try {
      await this.send(rows, fence, done);
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      if (rows.length > 1) for (const row of rows) await this.sendOrSplit([row], fence, done);
      else if (rows[0]) await this.deadLetter(rows[0], rowBytes(rows[0]), fence, done, messageOf(error));
    }
  }

  private async send(rows: readonly OutboxRow[], fence: Fence, done: string[]): Promise<void> {
    await this.options.beforeSend?.(toTopicMessages(rows, this.prefix));
    const producer = await attempt('broker', () => this.producer.connected());
    await fence();
    const { traced, topicMessages, sent, latencyMs } = await sendRows(
      producer,
      rows,
      this.delivery,
      this.prefix,
    );
    for (const row of rows) done.push(row.id);
    this.counters.published += rows.length;
    this.counters.batches += 1;
    this.counters.lastBatchSize = rows.length;
    this.counters.lastPublishLatencyMs = latencyMs;
    // Published: nothing below may fail the batch (the relay would send it again).
    try {
      countPublished(rows, latencyMs);
    } catch (error) {
      this.logger.error(`${this.name}: recording the published batch threw: ${messageOf(error)}`);
    }
    if (this.options.onPublished) {
      const partitionOf = (message: Message) => this.partitions.get(message);
      const records = publishedRecords(traced, topicMessages, sent, partitionOf, this.prefix);
      this.pending.add(rows.length, records, latencyMs, performance.now());
    }
  }

  /** A row no send can carry goes to the dead-letter topic and out of the outbox: the rest flows. */
  private async deadLetter(
    row: OutboxRow | undefined,
    recordBytes: number,
    fence: Fence,
    done: string[],
    brokerError?: string,
  ): Promise<void> {
    if (row === undefined) return;
    const topic = this.prefix + row.topic;
    const limitBytes = this.maxBatchBytes;
    const letter = relayDeadLetter(row, {
      topic,
      recordBytes,
      limitBytes,
      ...(brokerError ? { brokerError } : {}),
    });
    const producer = await attempt('broker', () => this.producer.connected());
    await fence();
    await attempt('broker', () =>
      producer.send({ ...this.delivery, topic: this.deadLetterTopic, messages: [letter] }),
    );
    done.push(row.id);
    this.counters.deadLettered += 1;
    countRelayDeadLetter(row, topic);
    this.logger.error(
      `${this.name}: ${row.type} ${row.event_id} (key ${row.key ?? '-'}) is too large for ${topic} ` +
        `(${recordBytes} bytes, limit ${limitBytes}${brokerError ? `; ${brokerError}` : ''}): ` +
        `dead-lettered to ${this.deadLetterTopic}${letter.value === null ? ' without its value' : ''}`,
    );
  }
}
