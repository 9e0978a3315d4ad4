import { EventDescriptors } from '../events/event-catalogue';
import {
  CLOUD_EVENTS_SPEC_VERSION,
  EventHeaders,
  JSON_CONTENT_TYPE,
  RequiredEventHeaderNames,
} from './header-names';

// The envelope in both directions, in one file: a consumer's triage (decodeEnvelope,
// triageRecord) and what a producer writes (metadataOf, encodeHeaders). Both run for every record,
// so nothing here calls into another file per record (docs/messaging.md, the consumer path).

/** The CloudEvents attributes and saga metadata every event carries. */
export interface EventMetadata {
  readonly id: string;
  readonly type: string;
  /** The producing service, e.g. `order-service`. */
  readonly source: string;
  /** ISO-8601; the event time, which analytics windows by. */
  readonly time: string;
  readonly dataSchema?: string;
  /** The order id on the saga topics. */
  readonly correlationId: string;
  /** The id of the event that caused this one; absent for events caused by an HTTP request. */
  readonly causationId?: string;
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** An event a service wants to publish, before it has an id and headers. */
export interface OutgoingEvent<Payload = unknown> {
  readonly topic: string;
  /** The record key: the aggregate id (order id on the saga topics, SKU on inventory.stock). */
  readonly key: string | null;
  readonly type: string;
  /** The payload's schema version; defaults to the contracts' current version of `type`. */
  readonly version?: number;
  /** `null` publishes a tombstone (compacted topics). */
  readonly payload: Payload | null;
  readonly correlationId: string;
  readonly causationId?: string;
  /** Defaults to a new UUID. */
  readonly id?: string;
  /** Defaults to now. */
  readonly time?: Date;
}

export type RecordHeaders = Record<string, string>;

/** CloudEvents `dataschema` of a type's payload version: `urn:order-pipeline:<type>:v<version>`. */
export const dataSchemaOf = (type: string, version: number): string =>
  `urn:order-pipeline:${type}:v${version}`;

/** The `ce_dataschema` producers write for each declared type, decided once (its current version). */
const CURRENT_DATA_SCHEMAS: ReadonlyMap<string, string> = new Map(
  EventDescriptors.map(({ type, version }) => [type, dataSchemaOf(type, version)]),
);

export function metadataOf(
  event: OutgoingEvent,
  source: string,
  trace: Partial<Pick<EventMetadata, 'traceparent' | 'tracestate'>> = {},
): EventMetadata {
  return {
    // The global Web Crypto, not node:crypto: contracts load nothing but zod at run time.
    id: event.id ?? crypto.randomUUID(),
    type: event.type,
    source,
    time: (event.time ?? new Date()).toISOString(),
    // A type the contracts do not declare is written as version 1 (currentVersionOf).
    dataSchema:
      event.version === undefined
        ? (CURRENT_DATA_SCHEMAS.get(event.type) ?? dataSchemaOf(event.type, 1))
        : dataSchemaOf(event.type, event.version),
    correlationId: event.correlationId,
    ...(event.causationId ? { causationId: event.causationId } : {}),
    ...trace,
  };
}

export function encodeHeaders(metadata: EventMetadata): RecordHeaders {
  const headers: RecordHeaders = {
    [EventHeaders.specVersion]: CLOUD_EVENTS_SPEC_VERSION,
    [EventHeaders.id]: metadata.id,
    [EventHeaders.type]: metadata.type,
    [EventHeaders.source]: metadata.source,
    [EventHeaders.time]: metadata.time,
    [EventHeaders.contentType]: JSON_CONTENT_TYPE,
    [EventHeaders.correlationId]: metadata.correlationId,
  };
  if (metadata.dataSchema) headers[EventHeaders.dataSchema] = metadata.dataSchema;
  if (metadata.causationId) headers[EventHeaders.causationId] = metadata.causationId;
  if (metadata.traceparent) headers[EventHeaders.traceparent] = metadata.traceparent;
  if (metadata.tracestate) headers[EventHeaders.tracestate] = metadata.tracestate;
  return headers;
}

/**
 * Kafka header values as clients decode them: Buffers, an array when a name repeats, and `null`
 * for a header whose value is null (length -1 on the wire: librdkafka and the Java client write it).
 */
export type RawHeaderValue = Buffer | string | null;
export type RawHeaders = Record<string, RawHeaderValue | RawHeaderValue[] | undefined>;

/**
 * A header's first value as text, for readers that show or route records (console, dead-letter
 * tools): a null value reads as absent, bytes that are not UTF-8 as replacement characters. Never
 * throws, whatever the header's shape. The envelope reads its own headers strictly (below).
 */
export function headerValue(headers: RawHeaders | null | undefined, name: string): string | undefined {
  const raw = headers?.[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === null ? undefined : value.toString();
}

/** Every header as text (`headerValue` of each name); null values are left out. */
export function readHeaders(headers: RawHeaders | null | undefined): RecordHeaders {
  const result: RecordHeaders = {};
  for (const name of Object.keys(headers ?? {})) {
    const value = headerValue(headers, name);
    if (value !== undefined) result[name] = value;
  }
  return result;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The envelope's own headers, read strictly: a CloudEvents attribute that repeats, or whose bytes
 * are not UTF-8, makes the record unreadable (which value would be the event's?). A null value
 * reads as absent. Other headers are never looked at.
 */
function readEnvelopeHeaders(
  headers: RawHeaders | null | undefined,
): { ok: true; read: RecordHeaders } | { ok: false; reason: string } {
  const read: RecordHeaders = {};
  for (const name of Object.values(EventHeaders)) {
    const raw = headers?.[name];
    if (raw === undefined || raw === null) continue;
    if (Array.isArray(raw)) {
      const present = raw.filter((value) => value !== null);
      if (present.length > 1) return { ok: false, reason: `header ${name} repeats (${raw.length} values)` };
      if (present.length === 0) continue;
    }
    const value = Array.isArray(raw) ? raw.find((item) => item !== null)! : raw;
    if (typeof value === 'string') {
      read[name] = value;
      continue;
    }
    try {
      read[name] = STRICT_UTF8.decode(value);
    } catch {
      return { ok: false, reason: `header ${name} is not UTF-8` };
    }
  }
  return { ok: true, read };
}

export type DecodedEnvelope =
  | { readonly ok: true; readonly metadata: EventMetadata; readonly payload: unknown }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a record in CloudEvents binary mode. Anything that is not a well-formed event (missing
 * headers, wrong spec version, bytes that are not JSON) is reported, never thrown: the caller
 * dead-letters it at once.
 */
export function decodeEnvelope(
  value: Buffer | null,
  headers: RawHeaders | null | undefined,
): DecodedEnvelope {
  // Each envelope header is decoded once: this runs for every record a service reads.
  const envelope = readEnvelopeHeaders(headers);
  if (!envelope.ok) return envelope;
  const { read } = envelope;
  const missing = RequiredEventHeaderNames.filter((name) => !read[name]);
  if (missing.length > 0) return { ok: false, reason: `missing required headers: ${missing.join(', ')}` };
  const specVersion = read[EventHeaders.specVersion];
  if (specVersion !== CLOUD_EVENTS_SPEC_VERSION) {
    return { ok: false, reason: `unsupported ${EventHeaders.specVersion} "${specVersion}"` };
  }
  const contentType = read[EventHeaders.contentType];
  if (contentType !== undefined && !contentType.startsWith(JSON_CONTENT_TYPE)) {
    return { ok: false, reason: `unsupported content-type "${contentType}"` };
  }
  let payload: unknown = null;
  if (value !== null) {
    try {
      payload = JSON.parse(value.toString('utf8'));
    } catch (error) {
      return {
        ok: false,
        reason: `value is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  const metadata: { -readonly [K in keyof EventMetadata]: EventMetadata[K] } = {
    id: read[EventHeaders.id]!,
    type: read[EventHeaders.type]!,
    source: read[EventHeaders.source]!,
    time: read[EventHeaders.time]!,
    correlationId: read[EventHeaders.correlationId]!,
  };
  const dataSchema = read[EventHeaders.dataSchema];
  const causationId = read[EventHeaders.causationId];
  const traceparent = read[EventHeaders.traceparent];
  const tracestate = read[EventHeaders.tracestate];
  if (dataSchema !== undefined) metadata.dataSchema = dataSchema;
  if (causationId !== undefined) metadata.causationId = causationId;
  if (traceparent !== undefined) metadata.traceparent = traceparent;
  if (tracestate !== undefined) metadata.tracestate = tracestate;
  if (Number.isNaN(Date.parse(metadata.time))) {
    return { ok: false, reason: `${EventHeaders.time} "${metadata.time}" is not an ISO-8601 time` };
  }
  return { ok: true, metadata, payload };
}

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

// PIPELINE_CONTRACTS, the pipeline's own EventContracts, is in events/read-event.ts.

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
