import { EventCatalogue, dataSchemaOf, isDeclaredFor, isEventType, parseEvent } from '@pipeline/contracts';

export type ParseResult =
  | { readonly ok: true; readonly type: string; readonly payload: unknown }
  | { readonly ok: false; readonly reason: string };

/**
 * What the consumer asks the contracts before it lets a record reach a handler. Pluggable so
 * tests (and forks) can declare their own events on their own topics.
 */
export interface EventContracts {
  isDeclaredFor(topic: string, type: string): boolean;
  parseEvent(type: string, value: unknown): ParseResult;
  /** The `ce_dataschema` this consumer understands for `type`; undefined: any (or none). */
  dataSchemaFor?(type: string): string | undefined;
  /** Whether a `null` value (a tombstone on a compacted topic) is legal for `type`. */
  allowsTombstone?(type: string): boolean;
}

export const PIPELINE_CONTRACTS: EventContracts = {
  isDeclaredFor,
  parseEvent: (type, value) => parseEvent(type, value),
  dataSchemaFor: (type) => (isEventType(type) ? dataSchemaOf(type, EventCatalogue[type].version) : undefined),
  allowsTombstone: (type) => isEventType(type) && 'tombstone' in EventCatalogue[type],
};
