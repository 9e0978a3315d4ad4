import { EventCatalogue, isDeclaredFor, isEventType } from '../events/event-catalogue';
import { acceptedDataSchemasOf, readEvent } from '../events/read-event';
import { decodeEnvelope, type EventMetadata, type RawHeaders } from './event-envelope';
import { EventHeaders } from './header-names';

export type ParseResult =
  | { readonly ok: true; readonly type: string; readonly payload: unknown }
  | { readonly ok: false; readonly reason: string };

/**
 * What the consumer asks the contracts before it lets a record reach a handler. Pluggable so
 * tests (and forks) can declare their own events on their own topics.
 */
export interface EventContracts {
  isDeclaredFor(topic: string, type: string): boolean;
  /** Validates a payload against the version `dataSchema` (the record's `ce_dataschema`) names. */
  parseEvent(type: string, value: unknown, dataSchema?: string): ParseResult;
  /** The `ce_dataschema`s this consumer reads for `type`; undefined: any (or none). */
  dataSchemasFor?(type: string): readonly string[] | undefined;
  /** Whether a `null` value (a tombstone on a compacted topic) is legal for `type`. */
  allowsTombstone?(type: string): boolean;
}

export const PIPELINE_CONTRACTS: EventContracts = {
  isDeclaredFor,
  parseEvent: (type, value, dataSchema) => readEvent(type, value, dataSchema),
  dataSchemasFor: (type) => (isEventType(type) ? acceptedDataSchemasOf(type) : undefined),
  allowsTombstone: (type) => isEventType(type) && 'tombstone' in EventCatalogue[type],
};

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
  message: { readonly value: Buffer | null; readonly headers?: RawHeaders },
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
