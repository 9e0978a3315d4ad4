import { Logger, type LoggerService } from '@nestjs/common';
import {
  PIPELINE_CONTRACTS,
  consumerGroupOf,
  deadLetterTopic,
  type EventContracts,
  type ServiceName,
} from '@pipeline/contracts';
import type { CompressionName } from '@pipeline/kafka-codecs';
import type { Admin, Kafka, RetryOptions as KafkaRetryOptions } from 'kafkajs';
import type pg from 'pg';
import { DEFAULT_RETRY, type RetryOptions } from '../retry/backoff';

export interface KafkaEventServerOptions {
  /** Short service name, e.g. `payment`: CloudEvents source `payment-service`, topic `payment.dead-letter`. */
  readonly service: string;
  /** Defaults to `<service>-service`; also the inbox `consumer` column. */
  readonly groupId?: string;
  readonly topics: readonly string[];
  readonly kafka: Kafka;
  /** The service's admin client, reused for the lag gauges (one is created when absent). */
  readonly admin?: Admin;
  /** The service's pool: every batch runs in one transaction on one of its connections. */
  readonly pool: pg.Pool;
  readonly retry?: Partial<RetryOptions>;
  readonly sessionTimeoutMs?: number;
  readonly rebalanceTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  /**
   * A fetch returns once this much is there or after fetchMaxWaitMs. Defaults 1 byte and 2 s:
   * a record is fetched the moment it arrives, an idle consumer waits in the broker.
   */
  readonly fetchMinBytes?: number;
  readonly fetchMaxWaitMs?: number;
  /** Bounds what one fetch holds in memory, per partition and in all. */
  readonly fetchMaxBytesPerPartition?: number;
  readonly fetchMaxBytes?: number;
  /**
   * Upper bound of events in one transaction (what waits beyond it goes in the next one), and the
   * records a partition may hold queued before kafkajs stops fetching it until it drains.
   */
  readonly maxEventsPerTransaction?: number;
  /** A short wait after a transaction of several keys' events, only then (BatchConsumer). */
  readonly busyLingerMs?: number;
  /**
   * At most one OffsetCommit per this interval (default 1000): a durable offset waits for the
   * next commit (a timer commits the last one). After a crash up to this much is fetched again
   * and dropped by the inbox. 0 commits after every transaction.
   */
  readonly commitIntervalMs?: number;
  /** kafkajs workers; at least the partitions of a fetch, so they all reach one transaction. */
  readonly partitionsConsumedConcurrently?: number;
  /** Where a new group starts: the beginning (default), so nothing produced before it is missed. */
  readonly fromBeginning?: boolean;
  readonly logger?: LoggerService;
  readonly contracts?: EventContracts;
  /** Defaults to `<service>.dead-letter`. */
  readonly deadLetterTopic?: string;
  /** Also read the dead-letter topic (same group) and log each record at WARN (default true). */
  readonly logDeadLetters?: boolean;
  /** Restart delays after the consumer crashed (doubling from initialBackoffMs up to maxBackoffMs). */
  readonly restartBackoff?: { readonly initialBackoffMs: number; readonly maxBackoffMs: number };
  /**
   * A record batch the consumer cannot decode (a codec it lacks, corrupt bytes): `dead-letter`
   * (default) records its offset range in the dead-letter topic and moves past it; `stop` fails the
   * fetch, so the group stops there and restarts with backoff until someone acts, and liveness
   * fails after the stall timeout. Why skipping is the default: docs/messaging.md#undecodable-batches.
   */
  readonly undecodableBatches?: UndecodableBatchPolicy;
  /** The codec of the dead letters' record batches (`KAFKA_COMPRESSION`). Default none. */
  readonly compression?: CompressionName;
  /** kafkajs's own retries of a failing fetch or batch before it declares the consumer crashed. */
  readonly kafkaRetry?: KafkaRetryOptions;
}

export type UndecodableBatchPolicy = 'dead-letter' | 'stop';

/** The defaults of the options above that have one; the services' configuration takes them from here. */
export const CONSUMER_DEFAULTS = {
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  fetchMinBytes: 1,
  fetchMaxWaitMs: 2_000,
  fetchMaxBytesPerPartition: 256 * 1024,
  fetchMaxBytes: 4 * 1024 * 1024,
  maxEventsPerTransaction: 500,
  busyLingerMs: 20,
  commitIntervalMs: 1_000,
  partitionsConsumedConcurrently: 64,
  fromBeginning: true,
  logDeadLetters: true,
  undecodableBatches: 'dead-letter' as UndecodableBatchPolicy,
  compression: 'none' as CompressionName,
  restartBackoff: { initialBackoffMs: 1_000, maxBackoffMs: 30_000 },
};

export function resolveServerOptions(options: KafkaEventServerOptions) {
  // An option given as undefined keeps its default.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return {
    ...CONSUMER_DEFAULTS,
    ...(given as KafkaEventServerOptions),
    groupId: options.groupId ?? consumerGroupOf(options.service),
    source: `${options.service}-service`,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    logger: options.logger ?? new Logger('KafkaEventServer'),
    contracts: options.contracts ?? PIPELINE_CONTRACTS,
    // The contracts name only the pipeline's services; forks and tests bring their own names.
    deadLetterTopic: options.deadLetterTopic ?? deadLetterTopic(options.service as ServiceName),
  };
}

export type ResolvedServerOptions = ReturnType<typeof resolveServerOptions>;
