import { BaseRpcContext, EventPattern, type MessageHandler } from '@nestjs/microservices';
import type { Sql } from '@pipeline/database';
import type { EventMetadata, OutgoingEvent } from '@pipeline/contracts';
import type { KafkaMessage } from 'kafkajs';
import type { TransactionScope } from '../transaction/batch-transaction';

// What a handler sees of an event and of its transaction, and the patterns it is declared with.

/** Where a consumed record came from. */
export interface RecordPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
}

/** One event of a fetched batch, validated against its contract, as a handler receives it. */
export interface ConsumedEvent<Payload = unknown> {
  readonly payload: Payload;
  readonly metadata: EventMetadata;
  readonly position: RecordPosition;
  /** 1 on the first delivery to the handler, 2 and up when it failed before. */
  readonly attempt: number;
}

/** A consumed event together with the record that carried it (the library's own view). */
export interface PendingEvent extends ConsumedEvent {
  readonly message: KafkaMessage;
  /** Whether the record's trace is sampled: only then does processing it create spans. */
  readonly sampled: boolean;
}

/** An event published by a handler: correlation and causation come from the event that caused it. */
export type PublishedEvent<Payload = unknown> = Omit<
  OutgoingEvent<Payload>,
  'correlationId' | 'causationId'
> & {
  readonly correlationId?: string;
};

export type TraceHeaders = Pick<EventMetadata, 'traceparent' | 'tracestate'>;

/** What both handler forms' `@Ctx()` share: the transaction. */
abstract class HandlerContext<Args extends unknown[]> extends BaseRpcContext<Args> {
  protected abstract readonly scope: TransactionScope;

  /** The consumer transaction: effects written here commit with the inbox rows and the outbox. */
  get sql(): Sql {
    return this.scope.sql;
  }

  /**
   * Runs `effect` after the transaction committed: for process-local side effects (metrics,
   * caches) that must not happen for a rolled-back attempt. Anything durable belongs in `sql`.
   */
  afterCommit(effect: () => void): void {
    this.scope.effects.push(effect);
  }
}

/**
 * The `@Ctx()` of a batch handler (`@EventBatchPattern`): the transaction of the whole batch.
 * `publish(cause, events)` adds outgoing events to the outbox of that transaction.
 */
export class EventBatch extends HandlerContext<[TransactionScope]> {
  constructor(protected readonly scope: TransactionScope) {
    super([scope]);
  }

  publish(cause: ConsumedEvent, events: PublishedEvent | readonly PublishedEvent[]): EventMetadata[] {
    return this.scope.publish(cause, events);
  }

  /**
   * Names the event an error is about: `throw batch.blame(event, new FatalError(...))`. The
   * consumer then fails that event alone and runs the rest of the batch again at once, instead
   * of bisecting the batch to find it.
   */
  blame<E>(event: ConsumedEvent, error: E): E {
    return blame(event, error);
  }
}

/** The `@Ctx()` of a single-event handler (`@EventPattern`): one event in the batch's transaction. */
export class EventContext extends HandlerContext<[EventMetadata, RecordPosition]> {
  constructor(
    protected readonly scope: TransactionScope,
    readonly event: ConsumedEvent,
  ) {
    super([event.metadata, event.position]);
  }

  get metadata(): EventMetadata {
    return this.event.metadata;
  }
  get topic(): string {
    return this.event.position.topic;
  }
  get partition(): number {
    return this.event.position.partition;
  }
  get offset(): string {
    return this.event.position.offset;
  }
  get key(): string | null {
    return this.event.position.key;
  }
  get attempt(): number {
    return this.event.attempt;
  }

  publish(events: PublishedEvent | readonly PublishedEvent[]): EventMetadata[] {
    return this.scope.publish(this.event, events);
  }
}

const culprits = new WeakMap<object, ConsumedEvent>();

/** Records that `error` is about `event` (see EventBatch.blame); returns the error. */
export function blame<E>(event: ConsumedEvent, error: E): E {
  if (typeof error === 'object' && error !== null) culprits.set(error, event);
  return error;
}

/** The event an error was blamed on, if any. */
export const culpritOf = (error: unknown): ConsumedEvent | undefined =>
  typeof error === 'object' && error !== null ? culprits.get(error) : undefined;

export const isHandlerContext = (value: unknown): boolean => value instanceof HandlerContext;

// The patterns a handler is declared with, and what the registry reads back from them.

/** Nest pattern extras key marking a batch handler; its value identifies the method. */
const BATCH_HANDLER = 'pipeline.batchHandler';

/**
 * Subscribes a method to one or more event types as a batch handler: it is called once per
 * transaction (per wave, see planHandlerCalls) with `@Payload() events: ConsumedEvent<P>[]` in
 * offset order per key, and `@Ctx() batch: EventBatch`. One method for several types receives
 * them together, in offset order per partition.
 */
export function EventBatchPattern(types: string | readonly string[]): MethodDecorator {
  return (target, key, descriptor) => {
    const id = `${target.constructor.name}.${String(key)}`;
    return EventPattern([types].flat(), { [BATCH_HANDLER]: id })(target, key, descriptor);
  };
}

/** The method id of a batch handler, undefined for a single-event handler. */
export function batchHandlerIdOf(handler: MessageHandler): string | undefined {
  const batchId = (handler.extras as Record<string, unknown> | undefined)?.[BATCH_HANDLER];
  return typeof batchId === 'string' ? batchId : undefined;
}

/**
 * What identifies a handler to the planner: the method of a batch handler (Nest registers one
 * proxy per pattern, but a method for several types is one handler), or the event type.
 */
export function handlerIdOf(type: string, handler: MessageHandler): string {
  return batchHandlerIdOf(handler) ?? type;
}

/**
 * `@EventPattern(type, { concurrency: n })`: up to n events of different keys at once (one key's
 * events still one after the other), for a handler that waits on something outside the database,
 * such as an SMTP server. The calls share the transaction's connection, so only a handler whose
 * events do not read-modify-write the same rows may ask for it. Default 1.
 */
export function concurrencyOf(handler: MessageHandler): number {
  const value = (handler.extras as Record<string, unknown> | undefined)?.['concurrency'];
  return typeof value === 'number' && Number.isInteger(value) && value > 1 ? value : 1;
}
