import { Logger, type LoggerService } from '@nestjs/common';
import { consumerGroupOf, deadLetterTopic, type ServiceName } from '@pipeline/contracts';
import type { Admin, Kafka, RetryOptions as KafkaRetryOptions } from 'kafkajs';
import type pg from 'pg';
import { DEFAULT_RETRY, type RetryOptions } from '../retry/backoff';
import { PIPELINE_CONTRACTS, type EventContracts } from '../events/event-contracts';

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
   * A fetch returns once this much is there or after fetchMaxWaitMs. Defaults 1 byte and 500 ms:
   * a record is fetched the moment it arrives, an idle consumer waits in the broker.
   */
  readonly fetchMinBytes?: number;
  readonly fetchMaxWaitMs?: number;
  /** Bounds what one fetch holds in memory, per partition and in all. */
  readonly fetchMaxBytesPerPartition?: number;
  readonly fetchMaxBytes?: number;
  /** Upper bound of events in one transaction (a larger fetch is applied in several). */
  readonly maxEventsPerTransaction?: number;
  /** Pause after a fetch that carried records, so the next one brings a fuller batch. */
  readonly lingerMs?: number;
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
  /** Restart delays after the consumer crashed (doubling from initialMs up to maxMs). */
  readonly restartBackoff?: { readonly initialMs: number; readonly maxMs: number };
  /** kafkajs's own retries of a failing fetch or batch before it declares the consumer crashed. */
  readonly kafkaRetry?: KafkaRetryOptions;
}

export type ResolvedServerOptions = Required<
  Omit<KafkaEventServerOptions, 'retry' | 'rebalanceTimeoutMs' | 'kafkaRetry' | 'admin'>
> & {
  readonly retry: RetryOptions;
  readonly rebalanceTimeoutMs: number | undefined;
  readonly kafkaRetry: KafkaRetryOptions | undefined;
  readonly admin: Admin | undefined;
  readonly source: string;
};

export function resolveServerOptions(options: KafkaEventServerOptions): ResolvedServerOptions {
  return {
    ...options,
    groupId: options.groupId ?? consumerGroupOf(options.service),
    source: `${options.service}-service`,
    admin: options.admin,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    sessionTimeoutMs: options.sessionTimeoutMs ?? 30_000,
    rebalanceTimeoutMs: options.rebalanceTimeoutMs,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 3_000,
    fetchMinBytes: options.fetchMinBytes ?? 1,
    fetchMaxWaitMs: options.fetchMaxWaitMs ?? 500,
    fetchMaxBytesPerPartition: options.fetchMaxBytesPerPartition ?? 256 * 1024,
    fetchMaxBytes: options.fetchMaxBytes ?? 4 * 1024 * 1024,
    maxEventsPerTransaction: options.maxEventsPerTransaction ?? 500,
    lingerMs: options.lingerMs ?? 20,
    commitIntervalMs: options.commitIntervalMs ?? 1_000,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 64,
    kafkaRetry: options.kafkaRetry,
    fromBeginning: options.fromBeginning ?? true,
    logger: options.logger ?? new Logger('KafkaEventServer'),
    contracts: options.contracts ?? PIPELINE_CONTRACTS,
    // The contracts name only the pipeline's services; forks and tests bring their own names.
    deadLetterTopic: options.deadLetterTopic ?? deadLetterTopic(options.service as ServiceName),
    logDeadLetters: options.logDeadLetters ?? true,
    restartBackoff: options.restartBackoff ?? { initialMs: 1_000, maxMs: 30_000 },
  };
}
