/**
 * Kafka record headers of the pipeline: CloudEvents 1.0 in Kafka binary mode (the record value
 * is the JSON payload; the attributes travel as `ce_*` headers), plus the saga's correlation
 * and causation ids and W3C trace context. A wire contract: never rename.
 */
export const EventHeaders = {
  specVersion: 'ce_specversion',
  id: 'ce_id',
  type: 'ce_type',
  source: 'ce_source',
  time: 'ce_time',
  /** CloudEvents `dataschema`: `urn:order-pipeline:<type>:v<version>`. */
  dataSchema: 'ce_dataschema',
  contentType: 'content-type',
  correlationId: 'correlation_id',
  causationId: 'causation_id',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
} as const;

/** The headers a consumer requires on every event record: a record missing one is poison. */
export const RequiredEventHeaderNames = [
  EventHeaders.specVersion,
  EventHeaders.id,
  EventHeaders.type,
  EventHeaders.source,
  EventHeaders.time,
  EventHeaders.correlationId,
] as const;

/** Headers a dead-lettered record gains, named as in the Kafka literature. */
export const DeadLetterHeaders = {
  originalTopic: 'original_topic',
  originalPartition: 'original_partition',
  originalOffset: 'original_offset',
  /**
   * A batch that could not be decoded (error_code UndecodableBatch): the last offset of the range
   * that starts at original_offset. Such a letter has no key, no value and no original headers.
   */
  originalLastOffset: 'original_last_offset',
  error: 'error',
  /** `retriable` or `fatal`. */
  errorClass: 'error_class',
  attempts: 'attempts',
  failedAt: 'failed_at',
  consumerGroup: 'consumer_group',
  /** Where it failed: `relay` (the outbox relay could not publish it); absent: a consumer. */
  stage: 'failed_stage',
  /** A stable code for the failure, e.g. `RecordTooLarge` or `UndecodableBatch`; absent on other consumer letters. */
  errorCode: 'error_code',
  /** Relay letters: what the original record weighs and the limit it is over (decimal bytes). */
  recordBytes: 'record_bytes',
  limitBytes: 'limit_bytes',
  /** `true` when the letter carries no value because the original did not fit either. */
  valueOmitted: 'value_omitted',
} as const;

/** Every dead letter has these; the rest depends on who wrote it (a consumer or the relay). */
export const RequiredDeadLetterHeaderNames = [
  DeadLetterHeaders.originalTopic,
  DeadLetterHeaders.error,
  DeadLetterHeaders.errorClass,
  DeadLetterHeaders.failedAt,
] as const;

/** What a consumer's dead letter carries (the relay's letters carry the stage, code and sizes). */
export const ConsumerDeadLetterHeaderNames = [
  DeadLetterHeaders.originalTopic,
  DeadLetterHeaders.originalPartition,
  DeadLetterHeaders.originalOffset,
  DeadLetterHeaders.error,
  DeadLetterHeaders.errorClass,
  DeadLetterHeaders.attempts,
  DeadLetterHeaders.failedAt,
  DeadLetterHeaders.consumerGroup,
] as const;

/** The dead-letter stage and code of a record the relay could never publish: replay skips it. */
export const RELAY_STAGE = 'relay';
export const RECORD_TOO_LARGE = 'RecordTooLarge';
/** The error code of a consumer's letter for a record batch it could not decode: nothing to replay. */
export const UNDECODABLE_BATCH = 'UndecodableBatch';

/** Added by `dlt replay`: `<dead-letter topic>/<partition>/<offset>` the record came from. */
export const ReplayHeaders = {
  replayedFrom: 'replayed_from',
} as const;

export const CLOUD_EVENTS_SPEC_VERSION = '1.0';
export const JSON_CONTENT_TYPE = 'application/json';
