import type { z } from 'zod';
import { EventHeaders } from '../envelope/header-names';
import { dataSchemaOf, type EventContracts } from '../envelope/event-envelope';
import {
  EventCatalogue,
  describeIssues,
  isDeclaredFor,
  isEventType,
  type EventParseFailure,
  type ParseEventResult,
} from './event-catalogue';
import type { AcceptedVersion, EventDescriptor } from './event-descriptor';

/** The `ce_dataschema`s consumers read for a type: its current version first, then the previous ones. */
export function acceptedDataSchemasOf(type: string): readonly string[] {
  if (!isEventType(type)) return [];
  const descriptor: EventDescriptor = EventCatalogue[type];
  const versions = [descriptor.version, ...(descriptor.previous ?? []).map((previous) => previous.version)];
  return versions.map((version) => dataSchemaOf(type, version));
}

/** The version producers write: the descriptor's `version` (1 for a type the contracts do not declare). */
export const currentVersionOf = (type: string): number =>
  isEventType(type) ? EventCatalogue[type].version : 1;

/**
 * How a consumer reads a record value (already JSON-parsed): `readPayload` with its type's
 * descriptor. `parseEvent` stays strict: it is what a producer may write. Never throws.
 */
export function readEvent(type: string, value: unknown, dataSchema?: string): ParseEventResult {
  if (!isEventType(type)) return { ok: false, reason: `undeclared event type "${type}"` };
  const read = readPayload(EventCatalogue[type], value, dataSchema);
  return read.ok ? ({ ok: true, type, payload: read.payload } as ParseEventResult) : read;
}

export type ReadPayloadResult = { readonly ok: true; readonly payload: unknown } | EventParseFailure;

/**
 * Validates against the version `dataSchema` names (the current one when the header is
 * absent); a previous version is upcast and the result checked against the current schema, so
 * a handler sees one shape. A tolerant reader: a field the schema does not know is dropped,
 * not a violation, so a producer that added an optional field does not poison the consumers
 * built before it (docs/contracts.md); everything else the schema says holds.
 */
export function readPayload(
  descriptor: EventDescriptor,
  value: unknown,
  dataSchema?: string,
): ReadPayloadResult {
  const { type, version } = descriptor;
  let previous: AcceptedVersion | undefined;
  if (dataSchema !== undefined && dataSchema !== dataSchemaOf(type, version)) {
    previous = descriptor.previous?.find((accepted) => dataSchemaOf(type, accepted.version) === dataSchema);
    if (!previous) return { ok: false, reason: `unsupported ${EventHeaders.dataSchema} "${dataSchema}"` };
  }
  const read = withoutUnknownFields(previous?.schema ?? descriptor.schema, value);
  if (!read.success) return { ok: false, reason: describeIssues(read.error.issues) };
  if (!previous) return { ok: true, payload: read.data };
  const upcast = descriptor.schema.safeParse(previous.upcast(read.data));
  if (!upcast.success) {
    const reason = describeIssues(upcast.error.issues);
    return { ok: false, reason: `v${previous.version} upcast to v${version}: ${reason}` };
  }
  return { ok: true, payload: upcast.data };
}

type Node = Record<PropertyKey, unknown>;

/** Parses; when zod names unknown keys (at any depth), parses again without them. */
function withoutUnknownFields(schema: z.ZodType, value: unknown): z.ZodSafeParseResult<unknown> {
  const first = schema.safeParse(value);
  if (first.success) return first;
  const unknown = first.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
  if (unknown.length === 0) return first;
  const copy = structuredClone(value);
  for (const issue of unknown) {
    const parent = issue.path.reduce<unknown>((node, key) => (node as Node)[key], copy) as Node;
    for (const key of issue.keys) delete parent[key];
  }
  return schema.safeParse(copy);
}

/** The pipeline's own contracts, as the consumer asks them (EventContracts, triageRecord). */
export const PIPELINE_CONTRACTS: EventContracts = {
  isDeclaredFor,
  parseEvent: (type, value, dataSchema) => readEvent(type, value, dataSchema),
  dataSchemasFor: (type) => (isEventType(type) ? acceptedDataSchemasOf(type) : undefined),
  allowsTombstone: (type) => isEventType(type) && 'tombstone' in EventCatalogue[type],
};
