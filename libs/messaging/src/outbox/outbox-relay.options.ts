import type { Kafka } from 'kafkajs';
import type { Sql } from '../database/sql';

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
  /** Rows per SELECT / sendBatch / DELETE. Default 500. */
  readonly batchSize?: number;
  /**
   * The longest wait after a NOTIFY before reading, so a busy pipeline batches (AdaptiveLinger:
   * none when the NOTIFY came after a quiet spell of at least this long, then doubling from
   * 5 ms while they keep coming). Default 10: writers batch already (a consumer transaction, a
   * group commit), so the relay lingers only when their commits come faster than that.
   */
  readonly lingerMs?: number;
  /**
   * Polling fallback (missed NOTIFYs), the DELETE of the last batch published (every DELETE
   * rides with the next read), and the follower's lock retry. Default 1000.
   */
  readonly pollIntervalMs?: number;
  /**
   * `all` (default): the broker acknowledges once every in-sync replica has the batch. `1`: the
   * leader alone, so a batch acknowledged (and deleted from the outbox) is lost if the leader
   * dies before a follower copied it. Only to demonstrate that; the idempotent producer needs `all`.
   */
  readonly acks?: OutboxAcks;
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
