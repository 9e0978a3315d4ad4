import type { Kafka, TopicMessages } from 'kafkajs';
import type { Sql } from '@pipeline/database';
import type { CompressionName } from '@pipeline/kafka-codecs';

/** The slice of Nest's `LoggerService` the relay uses; a Nest `Logger` fits. */
export interface OutboxRelayLogger {
  log(message: string): unknown;
  warn(message: string): unknown;
  error(message: string, trace?: string): unknown;
  debug?(message: string): unknown;
}

export type OutboxAcks = 'all' | '1';

export interface OutboxRelayOptions {
  /** The service whose outbox this is, e.g. `order`: one active relay per service. */
  readonly service: string;
  readonly databaseUrl: string;
  readonly kafka: Kafka;
  /** Rows per SELECT / DELETE. Default 500. */
  readonly batchSize?: number;
  /**
   * Upper bound of one `sendBatch` in record bytes (`recordBytes`): a batch heavier than that goes
   * in several sends, one after the other in id order, each under the topics'
   * `max.message.bytes` (1 MiB by default). A row heavier on its own goes to the service's
   * dead-letter topic instead. Default 524288 (512 KiB).
   */
  readonly maxBatchBytes?: number;
  /** Where rows too large to publish go. Default: the service's, `<topicPrefix><service>.dead-letter`. */
  readonly deadLetterTopic?: string;
  /**
   * Polling fallback (missed NOTIFYs), the DELETE of the last batch published (every DELETE
   * rides with the next read), and the follower's lock retry. Default 1000.
   */
  readonly pollIntervalMs?: number;
  /**
   * `all` (default): the broker acknowledges once every in-sync replica has the batch. `1`: the
   * leader alone, so a batch acknowledged (and deleted from the outbox) is lost if the leader
   * dies before a follower copied it. Only to demonstrate that.
   */
  readonly acks?: OutboxAcks;
  /** The codec of the relay's record batches (`KAFKA_COMPRESSION`, lz4 in the services). Default none. */
  readonly compression?: CompressionName;
  /** Advisory-lock key. Default: derived from `service`, stable. */
  readonly lockKey?: number;
  /** Upper bound on the flush `stop()` performs when the broker or database fails. Default 10000. */
  readonly flushTimeoutMs?: number;
  /**
   * Prepended to every topic at publish time (rows keep the contract names). Isolates test runs
   * and environments sharing a cluster; empty by default.
   */
  readonly topicPrefix?: string;
  readonly logger?: OutboxRelayLogger;
  /**
   * Called with where every event the broker acknowledged landed, for
   * all the batches published since the last call: once the oldest of them has waited
   * `onPublishedIntervalMs`, and before a stop completes. Runs between batches, awaited, so
   * calls come one at a time and in order. `sql` is the relay's own session (no transaction
   * open): keep it to one cheap statement. A hook that throws or rejects is logged and nothing
   * more: its events are published whatever it does. Without a hook the relay works out no
   * positions.
   */
  readonly onPublished?: (batch: OutboxPublishedBatch, sql: Sql) => void | Promise<void>;
  /** How long published records may wait to be reported together to `onPublished`. Default 1000. */
  readonly onPublishedIntervalMs?: number;
  /**
   * A test seam: awaited with the records of each send (before their send spans), just before
   * the relay sends them: after the read that proved the lock for a batch's first send, before
   * the check of its own for a later one. A test holds a send here, or weighs it.
   */
  readonly beforeSend?: (topicMessages: readonly TopicMessages[]) => void | Promise<void>;
}

export interface OutboxPublishedBatch {
  /** Rows published since the last report. */
  readonly size: number;
  /** The longest, over those batches, from `sendBatch` to the broker's acknowledgement. */
  readonly latencyMs: number;
  /** One per row, in the outbox's id order. */
  readonly records: readonly OutboxPublishedRecord[];
}

/** Where one outbox row landed in Kafka. */
export interface OutboxPublishedRecord {
  readonly eventId: string;
  /** The topic as written in the outbox (the contract name, without `topicPrefix`). */
  readonly topic: string;
  readonly key: string | null;
  readonly partition: number;
  /** An int64 as a decimal string, as kafkajs gives offsets. */
  readonly offset: string;
}

export interface OutboxRelayStats {
  readonly published: number;
  readonly batches: number;
  readonly lastBatchSize: number;
  readonly lastPublishLatencyMs: number | null;
  /** Rows too large to publish, sent to the dead-letter topic and deleted. */
  readonly deadLettered: number;
  /** Failed attempts (database or broker) since start. */
  readonly failures: number;
}

export interface OutboxBacklog {
  readonly rows: number;
  readonly oldestAgeMs: number | null;
}

export const consoleLogger: OutboxRelayLogger = {
  log: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};
