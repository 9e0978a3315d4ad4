import type { MessageHandler } from '@nestjs/microservices';
import { context } from '@opentelemetry/api';
import { isObservable, lastValueFrom } from 'rxjs';
import type { Context } from '@opentelemetry/api';
import { orderingKeyOf, type ConsumedEvent, type PendingEvent } from '../events/consumed-event';
import { withEventLogContext } from '../events/event-log-context';
import {
  EventBatch,
  EventContext,
  batchHandlerIdOf,
  blame,
  concurrencyOf,
  handlerIdOf,
  type TransactionScope,
} from './event-batch';

/** A handler as the transaction sees it: one call with a list of events, in order. */
export type TransactionHandler = (
  events: readonly PendingEvent[],
  scope: TransactionScope,
  traceContextOf: TraceContextOf,
) => Promise<void>;

/** The context an event's work runs in: its `process` span when sampled, else no span at all. */
export type TraceContextOf = (event: PendingEvent) => Context;

/**
 * The service's event handlers, by type, read once from Nest's registry when consuming starts
 * (`load`). Nest's own lookup (`getHandlerByPattern`) first tries to parse every pattern as JSON,
 * and the exception it throws for a plain type was 6 % of a consumer's CPU when it ran per
 * record. `call` runs one handler inside Nest's processing hooks (the server's).
 */
export class HandlerRegistry {
  private routes: ReadonlyMap<string, MessageHandler> = new Map();
  /** One TransactionHandler per handler method: the types of a multi-type method share it. */
  private readonly handlers = new Map<string, TransactionHandler>();

  constructor(private readonly hooks: ProcessingHooks) {}

  private readonly call: HookedCall = (handler, data, ctx) =>
    this.hooks(ctx, () => settleHandlerResult(handler(data, ctx)));

  load(nestHandlers: ReadonlyMap<string, MessageHandler>): void {
    this.routes = new Map([...nestHandlers].filter(([, handler]) => handler.isEventHandler));
    this.handlers.clear();
  }

  get types(): string[] {
    return [...this.routes.keys()];
  }

  has(type: string): boolean {
    return this.routes.has(type);
  }

  private handlerOf(type: string): TransactionHandler {
    const nest = this.routes.get(type);
    if (nest === undefined) throw new Error(`no @EventPattern handler for "${type}"`);
    const id = handlerIdOf(type, nest);
    let handler = this.handlers.get(id);
    if (handler === undefined) {
      handler = transactionHandlerOf(nest, this.call);
      this.handlers.set(id, handler);
    }
    return handler;
  }

  /** The calls of one transaction over `events` (planHandlerCalls). */
  plan(events: readonly PendingEvent[]): HandlerCall<TransactionHandler, PendingEvent>[] {
    return planHandlerCalls(events, (event) => this.handlerOf(event.metadata.type));
  }
}

/** Runs a Nest handler and waits for its result. */
type HookedCall = (handler: MessageHandler, data: unknown, ctx: EventBatch | EventContext) => Promise<void>;

/** Runs `work` (one handler call) inside Nest's processing hooks: the server provides them. */
export type ProcessingHooks = (ctx: EventBatch | EventContext, work: () => Promise<void>) => Promise<void>;

/**
 * The transaction's view of a Nest event handler. A batch handler gets the whole list in one
 * call; a single-event handler (`@EventPattern`) is called once per event, in order per key
 * (one at a time unless it asks for `concurrency`), each call in the event's own trace and log
 * context.
 */
function transactionHandlerOf(handler: MessageHandler, call: HookedCall): TransactionHandler {
  const batchId = batchHandlerIdOf(handler);
  if (typeof batchId === 'string') {
    return (events, scope, traceContextOf) =>
      context.with(traceContextOf(firstSampled(events)), () => call(handler, events, new EventBatch(scope)));
  }
  const concurrency = concurrencyOf(handler);
  const one = async (event: PendingEvent, scope: TransactionScope, traceContextOf: TraceContextOf) => {
    try {
      await withEventLogContext(
        event,
        () => call(handler, event.payload, new EventContext(scope, event)),
        traceContextOf(event),
      );
    } catch (error) {
      // The failing event is known: no need to bisect the batch to find it.
      throw blame(event, error);
    }
  };
  return (events, scope, traceContextOf) =>
    eachKeyInOrder(events, concurrency, (event) => one(event, scope, traceContextOf));
}

/**
 * Runs `work` for every event: per ordering key in list order, up to `concurrency` keys at once.
 * The first failure stops new work, waits for what is running, and is rethrown.
 */
export async function eachKeyInOrder<Event extends PendingEvent>(
  events: readonly Event[],
  concurrency: number,
  work: (event: Event) => Promise<void>,
): Promise<void> {
  if (concurrency <= 1) {
    for (const event of events) await work(event);
    return;
  }
  const byKey = new Map<string, Event[]>();
  for (const event of events) {
    const key = orderingKeyOf(event.position);
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [event]);
    else list.push(event);
  }
  const queues = [...byKey.values()];
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    for (let queue = queues.shift(); queue !== undefined && failure === undefined; queue = queues.shift()) {
      for (const event of queue) {
        if (failure !== undefined) return;
        try {
          await work(event);
        } catch (error) {
          failure ??= { error };
          return;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queues.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

const firstSampled = (events: readonly PendingEvent[]): PendingEvent =>
  events.find((event) => event.sampled) ?? events[0]!;

/** Awaits whatever a Nest handler returned (a promise or an observable) and unwraps its error. */
async function settleHandlerResult(result: unknown): Promise<void> {
  try {
    const value: unknown = await result;
    if (isObservable(value)) await lastValueFrom(value, { defaultValue: undefined });
  } catch (error) {
    throw unwrapHandlerError(error);
  }
}

/** The error object Nest's default filter substitutes; its original is gone. */
export class UnclassifiedHandlerError extends Error {
  override readonly name = 'UnclassifiedHandlerError';
}

/** The handler's error as an Error; a substitute object from Nest's default filter is marked as such. */
export function unwrapHandlerError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (
    typeof error === 'object' &&
    error !== null &&
    'message' in error &&
    typeof error.message === 'string'
  ) {
    return new UnclassifiedHandlerError(
      `${error.message} (the handler's error was replaced by Nest's default exception filter; apply EventErrorFilter)`,
    );
  }
  return new Error(String(error));
}

/** One call of a handler with the events it receives, in the order it must apply them. */
export interface HandlerCall<Handler, Event extends ConsumedEvent = ConsumedEvent> {
  readonly handler: Handler;
  readonly events: Event[];
}

/**
 * Plans the handler calls of one transaction so that each handler is called as few times as
 * order allows. `events` come in offset order per partition. Order must hold per key across
 * handlers: an order's `payment.authorized` and `stock.reserved` go to different handlers and
 * the earlier one must be applied first. So the calls come in waves: a wave takes every event
 * whose key has no earlier event waiting, as long as the key's events in the wave all go to one
 * handler; each handler is called once per wave with its events in their original order. When
 * every event of a partition goes to one handler (analytics), there is one wave and that handler
 * sees the partition in offset order.
 */
export function planHandlerCalls<Handler, Event extends ConsumedEvent>(
  events: readonly Event[],
  handlerOf: (event: Event) => Handler,
): HandlerCall<Handler, Event>[] {
  const calls: HandlerCall<Handler, Event>[] = [];
  let pending: readonly Event[] = events;
  while (pending.length > 0) {
    const wave = new Map<Handler, Event[]>();
    const handlerOfKey = new Map<string, Handler>();
    const deferredKeys = new Set<string>();
    const deferred: Event[] = [];
    for (const event of pending) {
      const key = orderingKeyOf(event.position);
      const handler = handlerOf(event);
      const claimed = handlerOfKey.get(key);
      if (deferredKeys.has(key) || (claimed !== undefined && claimed !== handler)) {
        deferredKeys.add(key);
        deferred.push(event);
        continue;
      }
      handlerOfKey.set(key, handler);
      const list = wave.get(handler);
      if (list === undefined) wave.set(handler, [event]);
      else list.push(event);
    }
    for (const [handler, list] of wave) calls.push({ handler, events: list });
    pending = deferred;
  }
  return calls;
}
