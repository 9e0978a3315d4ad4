export * from './kafka/kafka.options';
export * from './kafka/kafka.tokens';
export * from './nest/kafka.module';
export {
  draftOutboxRows,
  insertOutboxRows,
  onOutboxCommitted,
  outboxCommitted,
  writeToOutbox,
  outboxHandoff,
  type CommittedOutboxRow,
  type OutboxHandoff,
  type OutboxRowDraft,
  type OutboxWriteOptions,
} from './transaction/batch-transaction';
export { chunkBySize, recordBytes } from './kafka/record-size';
export * from './errors/pipeline-error';
export * from './errors/classify-error';
export * from './nest/kafka-event-server';
export { CONSUMER_DEFAULTS, type KafkaEventServerOptions } from './nest/kafka-event-server.options';
export {
  EventBatch,
  EventBatchPattern,
  EventContext,
  blame,
  culpritOf,
  isHandlerContext,
  type PublishedEvent,
} from './handlers/event-batch';
export type { ConsumedEvent, RecordPosition } from './handlers/event-batch';
export { TransactionScope } from './transaction/batch-transaction';
export { UnclassifiedHandlerError } from './handlers/event-handlers';
export * from './events/consumer-stats';
export { isBrokerOutage } from './health/liveness';
// The dead-letter path's parts, for code that runs it outside the NestJS server (the experiments).
export { DeadLetterPublisher, deadLetterHeaders, type DeadLetter } from './dead-letters/dead-letter';
export { logDeadLetter } from './dead-letters/dead-letter-log';
export { DEFAULT_RETRY, backoffDelay, sleep, type RetryOptions } from './retry/backoff';
