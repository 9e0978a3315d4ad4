import type { z } from 'zod';
import type { EventDescriptor } from './event-descriptor';
import { OrderCancelledEvent } from './order-cancelled.event';
import { OrderConfirmedEvent } from './order-confirmed.event';
import { OrderPlacedEvent } from './order-placed.event';
import { OrdersCountUpdatedEvent } from './orders-count-updated.event';
import { PaymentAuthorizedEvent } from './payment-authorized.event';
import { PaymentDeclinedEvent } from './payment-declined.event';
import { PaymentRefundedEvent } from './payment-refunded.event';
import { StockChangedEvent } from './stock-changed.event';
import { StockRejectedEvent } from './stock-rejected.event';
import { StockReservedEvent } from './stock-reserved.event';

/**
 * Every event type the contracts declare, keyed by type. Dead-letter topics declare none: they
 * carry copies of records of any type.
 */
export const EventCatalogue = {
  [OrderPlacedEvent.type]: OrderPlacedEvent,
  [OrderConfirmedEvent.type]: OrderConfirmedEvent,
  [OrderCancelledEvent.type]: OrderCancelledEvent,
  [PaymentAuthorizedEvent.type]: PaymentAuthorizedEvent,
  [PaymentDeclinedEvent.type]: PaymentDeclinedEvent,
  [PaymentRefundedEvent.type]: PaymentRefundedEvent,
  [StockReservedEvent.type]: StockReservedEvent,
  [StockRejectedEvent.type]: StockRejectedEvent,
  [StockChangedEvent.type]: StockChangedEvent,
  [OrdersCountUpdatedEvent.type]: OrdersCountUpdatedEvent,
} as const satisfies Readonly<Record<string, EventDescriptor>>;

export type EventType = keyof typeof EventCatalogue;

/** The payload type of each event type. */
export type EventPayloadMap = { [T in EventType]: z.infer<(typeof EventCatalogue)[T]['schema']> };
export type EventPayload<T extends EventType> = EventPayloadMap[T];

/** The descriptors in declaration order. */
export const EventDescriptors: readonly EventDescriptor<EventType>[] = Object.values(EventCatalogue);

export const EventTypes: readonly EventType[] = EventDescriptors.map((descriptor) => descriptor.type);

export const isEventType = (type: string): type is EventType => Object.hasOwn(EventCatalogue, type);

/** The event types the contracts declare for a topic (none for a dead-letter or unknown topic). */
export const eventsOfTopic = (topic: string): readonly EventType[] =>
  EventTypes.filter((type) => EventCatalogue[type].topic === topic);

/** Whether `type` is an event type the contracts declare for `topic`; anything else is poison. */
export const isDeclaredFor = (topic: string, type: string): type is EventType =>
  isEventType(type) && EventCatalogue[type].topic === topic;

/** A payload that matched its schema, typed by its event type. */
export type ParsedEvent<T extends EventType = EventType> = {
  [K in T]: { readonly ok: true; readonly type: K; readonly payload: EventPayload<K> };
}[T];

export interface EventParseFailure {
  readonly ok: false;
  /** Every offending field with zod's message, e.g. `items.0.quantity: Too big: ...`. */
  readonly reason: string;
}

export type ParseEventResult<T extends EventType = EventType> = ParsedEvent<T> | EventParseFailure;

/**
 * Validates a record value (already JSON-parsed) against its event type's schema. Never throws:
 * an undeclared type or a schema violation is a failure whose `reason` names the fields.
 * A tombstone (`null` on a compacted topic) is not an event: check for it before parsing.
 */
export function parseEvent<T extends EventType>(type: T, value: unknown): ParseEventResult<T>;
export function parseEvent(type: string, value: unknown): ParseEventResult;
export function parseEvent(type: string, value: unknown): ParseEventResult {
  if (!isEventType(type)) return { ok: false, reason: `undeclared event type "${type}"` };
  const result = (EventCatalogue[type].schema as z.ZodType).safeParse(value);
  if (!result.success) return { ok: false, reason: describeIssues(result.error.issues) };
  return { ok: true, type, payload: result.data } as ParsedEvent;
}

/** `path: message` per zod issue, joined with `; `; an unknown field is named by its own path. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const pathOf = (path: readonly PropertyKey[]): string => path.map((part) => String(part)).join('.');
  return issues
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${pathOf([...issue.path, key])}: unknown field`)
        : [`${pathOf(issue.path) || '(value)'}: ${issue.message}`],
    )
    .join('; ');
}
