import type { LoggerService } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { EventHeaders, decodeEnvelope, type EventMetadata } from '@pipeline/contracts';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { DeadLetter } from '../dead-letters/dead-letter';
import { logDeadLetter } from '../dead-letters/dead-letter-log';
import type { PendingEvent } from '../events/consumed-event';
import type { EventContracts } from '../events/event-contracts';
import { contextFromHeaders, isSampled } from '@pipeline/observability';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Triage =
  /** Never processable: dead-letter at once. */
  | { readonly kind: 'poison'; readonly reason: string }
  /** Declared for the topic, but this service has no handler for it: skip and commit. */
  | { readonly kind: 'unhandled'; readonly type: string }
  | { readonly kind: 'event'; readonly metadata: EventMetadata; readonly payload: unknown };

/**
 * Decides what a record is before any transaction: a malformed envelope, a type the contracts
 * do not declare for the topic, a schema version this build does not read or a payload that
 * violates the schema are poison; retrying them cannot help.
 */
export function triageRecord(
  topic: string,
  message: KafkaMessage,
  contracts: EventContracts,
  hasHandler: (type: string) => boolean,
): Triage {
  const decoded = decodeEnvelope(message.value, message.headers);
  if (!decoded.ok) return { kind: 'poison', reason: decoded.reason };
  const { metadata } = decoded;
  if (!UUID.test(metadata.id))
    return { kind: 'poison', reason: `${EventHeaders.id} "${metadata.id}" is not a UUID` };
  if (!contracts.isDeclaredFor(topic, metadata.type)) {
    return { kind: 'poison', reason: `event type "${metadata.type}" is not declared for topic "${topic}"` };
  }
  const accepted = contracts.dataSchemasFor?.(metadata.type);
  const { dataSchema } = metadata;
  if (accepted !== undefined && dataSchema !== undefined && !accepted.includes(dataSchema)) {
    const reads = accepted.map((schema) => `"${schema}"`).join(', ');
    return {
      kind: 'poison',
      reason: `unsupported ${EventHeaders.dataSchema} "${dataSchema}" (this consumer reads ${reads})`,
    };
  }
  if (!hasHandler(metadata.type)) return { kind: 'unhandled', type: metadata.type };
  if (decoded.payload === null && message.value === null && contracts.allowsTombstone?.(metadata.type)) {
    return { kind: 'event', metadata, payload: null };
  }
  const parsed = contracts.parseEvent(metadata.type, decoded.payload, dataSchema);
  if (!parsed.ok)
    return { kind: 'poison', reason: `payload violates the "${metadata.type}" schema: ${parsed.reason}` };
  return { kind: 'event', metadata, payload: parsed.payload };
}

/** A record after triage, in offset order. */
export type Triaged =
  | { readonly kind: 'event'; readonly event: PendingEvent }
  | { readonly kind: 'poison'; readonly letter: DeadLetter }
  | { readonly kind: 'skipped'; readonly type: string }
  /** A record of the service's own dead-letter topic: logged, nothing else. */
  | { readonly kind: 'logged' };

/** A partition of the fetch: its records and how far they are resolved. */
export interface PartitionWork {
  readonly payload: EachBatchPayload;
  readonly records: readonly { readonly offset: string; readonly triaged: Triaged }[];
  /** Index of the first record whose offset is not resolved yet. */
  next: number;
}

export interface TriageDeps {
  readonly contracts: EventContracts;
  /** The service's own dead-letter topic: its records are logged at WARN, never processed. */
  readonly deadLetterTopic: string;
  readonly logger: LoggerService;
  hasHandler(type: string): boolean;
  /** The attempt this delivery of the record is (Retries.attemptOf). */
  attemptOf(topic: string, partition: number, offset: string): number;
}

/** Every record of one partition of a fetch, triaged. */
export function triagePartition(payload: EachBatchPayload, deps: TriageDeps): PartitionWork {
  const { topic, partition, messages } = payload.batch;
  const records = messages.map((message) => ({
    offset: message.offset,
    triaged: triageOne(topic, partition, message, deps),
  }));
  return { payload, records, next: 0 };
}

function triageOne(topic: string, partition: number, message: KafkaMessage, deps: TriageDeps): Triaged {
  if (topic === deps.deadLetterTopic) {
    logDeadLetter(deps.logger, topic, partition, message);
    return { kind: 'logged' };
  }
  const triage = triageRecord(topic, message, deps.contracts, (type) => deps.hasHandler(type));
  if (triage.kind === 'poison') {
    context.with(contextFromHeaders(message.headers), () => {
      deps.logger.warn(`poison record ${topic}/${partition}@${message.offset}: ${triage.reason}`);
    });
    return {
      kind: 'poison',
      letter: { topic, partition, message, error: triage.reason, errorClass: 'fatal', attempts: 1 },
    };
  }
  if (triage.kind === 'unhandled') return { kind: 'skipped', type: triage.type };
  return {
    kind: 'event',
    event: {
      payload: triage.payload,
      metadata: triage.metadata,
      position: { topic, partition, offset: message.offset, key: message.key?.toString() ?? null },
      attempt: deps.attemptOf(topic, partition, message.offset),
      message,
      sampled: isSampled(triage.metadata.traceparent),
    },
  };
}
