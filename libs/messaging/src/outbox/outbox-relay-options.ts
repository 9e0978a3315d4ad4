import type { Kafka } from 'kafkajs';

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
   * How long to wait after a NOTIFY before reading, so a busy pipeline batches. Only while the
   * previous batch carried more than one row: a quiet pipeline publishes at once. Default 5.
   */
  readonly lingerMs?: number;
  /** Polling fallback (missed NOTIFYs) and the follower's lock retry. Default 1000. */
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
  readonly onPublished?: (batch: OutboxPublishedBatch) => void;
}

export interface OutboxPublishedBatch {
  readonly size: number;
  /** From `sendBatch` to the broker's acknowledgement (acks = all). */
  readonly latencyMs: number;
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
