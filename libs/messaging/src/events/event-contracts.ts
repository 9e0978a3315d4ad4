import {
  EventCatalogue,
  acceptedDataSchemasOf,
  isDeclaredFor,
  isEventType,
  readEvent,
} from '@pipeline/contracts';

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
