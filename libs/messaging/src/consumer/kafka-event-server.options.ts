import { Logger, type LoggerService } from '@nestjs/common';
import { deadLetterTopic, type ServiceName } from '@pipeline/contracts';
import type { Kafka, RetryOptions as KafkaRetryOptions } from 'kafkajs';
import type { SqlClient, TransactionalSqlClient } from '../database/sql-client';
import type { RetryOptions } from '../retry/backoff';
import { PIPELINE_CONTRACTS, type EventContracts } from './event-contracts';

export interface KafkaEventServerOptions<Tx extends SqlClient = SqlClient> {
  /** Short service name, e.g. `payment`: CloudEvents source `payment-service`, topic `payment.dead-letter`. */
  readonly service: string;
  /** Defaults to `<service>-service`; also the inbox `consumer` column. */
  readonly groupId?: string;
  readonly topics: readonly string[];
  readonly kafka: Kafka;
  /** The service's PrismaClient: handlers receive its interactive-transaction client as `ctx.tx`. */
  readonly database: TransactionalSqlClient<Tx>;
  readonly retry?: Partial<RetryOptions>;
  readonly partitionsConsumedConcurrently?: number;
  readonly sessionTimeout?: number;
  readonly rebalanceTimeout?: number;
  readonly heartbeatInterval?: number;
  readonly transactionTimeoutMs?: number;
  /** Upper bound of records handled in one transaction (a batch is split into chunks). */
  readonly maxRecordsPerTransaction?: number;
  /** Where a new group starts: the beginning (default), so nothing produced before it is missed. */
  readonly fromBeginning?: boolean;
  readonly logger?: LoggerService;
  readonly contracts?: EventContracts;
  /** Defaults to `<service>.dead-letter`. */
  readonly deadLetterTopic?: string;
  /** Consume the dead-letter topic and log each record at WARN (default true). */
  readonly logDeadLetters?: boolean;
  /** Restart delays after the consumer crashed (doubling from initialMs up to maxMs). */
  readonly restartBackoff?: { readonly initialMs: number; readonly maxMs: number };
  /** kafkajs's own retries of a failing fetch or batch before it declares the consumer crashed. */
  readonly kafkaRetry?: KafkaRetryOptions;
}

export type ResolvedServerOptions<Tx extends SqlClient> = Required<
  Omit<KafkaEventServerOptions<Tx>, 'retry' | 'rebalanceTimeout' | 'kafkaRetry'>
> & {
  readonly retry: RetryOptions;
  readonly rebalanceTimeout: number | undefined;
  readonly kafkaRetry: KafkaRetryOptions | undefined;
  readonly source: string;
};

export function resolveServerOptions<Tx extends SqlClient>(
  options: KafkaEventServerOptions<Tx>,
): ResolvedServerOptions<Tx> {
  return {
    ...options,
    groupId: options.groupId ?? `${options.service}-service`,
    source: `${options.service}-service`,
    retry: { attempts: 3, initialBackoffMs: 200, maxBackoffMs: 5_000, ...options.retry },
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 6,
    sessionTimeout: options.sessionTimeout ?? 30_000,
    rebalanceTimeout: options.rebalanceTimeout,
    kafkaRetry: options.kafkaRetry,
    heartbeatInterval: options.heartbeatInterval ?? 3_000,
    transactionTimeoutMs: options.transactionTimeoutMs ?? 30_000,
    maxRecordsPerTransaction: options.maxRecordsPerTransaction ?? 250,
    fromBeginning: options.fromBeginning ?? true,
    logger: options.logger ?? new Logger('KafkaEventServer'),
    contracts: options.contracts ?? PIPELINE_CONTRACTS,
    // The contracts name only the pipeline's services; forks and tests bring their own names.
    deadLetterTopic: options.deadLetterTopic ?? deadLetterTopic(options.service as ServiceName),
    logDeadLetters: options.logDeadLetters ?? true,
    restartBackoff: options.restartBackoff ?? { initialMs: 1_000, maxMs: 30_000 },
  };
}
