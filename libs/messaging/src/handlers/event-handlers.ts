import type { BaseRpcContext, MessageHandler } from '@nestjs/microservices';
import { ROOT_CONTEXT, context, type Context } from '@opentelemetry/api';
import { contextFromHeaders, withLogContext } from '@pipeline/observability';
import { isObservable, lastValueFrom } from 'rxjs';
import type { TransactionScope } from '../transaction/batch-transaction';
import {
  EventBatch,
  EventContext,
  batchHandlerIdOf,
  blame,
  concurrencyOf,
  handlerIdOf,
  type ConsumedEvent,
  type PendingEvent,
  type RecordPosition,
} from './event-batch';

/** A handler as the transaction sees it: one call with a list of events, in order. */
export type TransactionHandler = (
  events: readonly PendingEvent[],
  scope: TransactionScope,
  traceContexts: TraceContexts,
) => Promise<void>;

/** The context an event's work runs in: its `process` span when sampled, else no span at all. */
export type TraceContexts = ReadonlyMap<PendingEvent, Context>;

const traceContextOf = (event: PendingEvent, contexts: TraceContexts): Context =>
  contexts.get(event) ?? ROOT_CONTEXT;

/**
 * Nest's processing hooks of a transport (Nest's `Server` holds them; tracing and metrics set
 * them). Read at every call: Nest may replace them after the transport was built.
 */
export interface ProcessingHooks {
  onProcessingStartHook(transportId: symbol, ctx: BaseRpcContext, done: () => Promise<unknown>): void;
  onProcessingEndHook?(transportId: symbol, ctx: BaseRpcContext): void;
}

/**
 * The service's event handlers, by type, read once from Nest's registry when consuming starts
 * (`load`): the routes and the calls. Nest's own lookup (`getHandlerByPattern`) first tries to
 * parse every pattern as JSON, and the exception it throws for a plain type was 6 % of a
 * consumer's CPU when it ran per record. `call` runs one handler inside Nest's processing hooks.
 */
export class HandlerRegistry {
  private routes: ReadonlyMap<string, MessageHandler> = new Map();
  /** One TransactionHandler per handler method: the types of a multi-type method share it. */
  private readonly handlers = new Map<string, TransactionHandler>();
  /** The same handlers by event type, so a record's type finds its handler in one lookup. */
  private readonly byType = new Map<string, TransactionHandler>();
  private readonly handled = new Set<string>();
  /**
   * Whether a handler takes events of this type: the Set's own `has`, so triage asks it per
   * record without entering this file.
   */
  readonly has: (type: string) => boolean = Set.prototype.has.bind(this.handled);

  constructor(
    private readonly hooks: ProcessingHooks,
    private readonly transportId: symbol,
  ) {}

  /** One handler call inside Nest's processing hooks (what Nest's own transports do). */
  private readonly call: HookedCall = (handler, data, ctx) =>
    new Promise<void>((resolve, reject) => {
      this.hooks.onProcessingStartHook(this.transportId, ctx, async () => {
        try {
          await settleHandlerResult(handler(data, ctx));
          resolve();
        } catch (error) {
          // The handler's error is handed over as it is (the same object, which `blame` relies on).
          reject(error instanceof Error ? error : new Error(String(error)));
        } finally {
          this.hooks.onProcessingEndHook?.(this.transportId, ctx);
        }
      });
    });

  load(nestHandlers: ReadonlyMap<string, MessageHandler>): void {
    this.routes = new Map([...nestHandlers].filter(([, handler]) => handler.isEventHandler));
    this.handlers.clear();
    this.byType.clear();
    this.handled.clear();
    for (const type of this.routes.keys()) this.handled.add(type);
  }

  get types(): string[] {
    return [...this.routes.keys()];
  }

  private handlerOf(type: string): TransactionHandler {
    const known = this.byType.get(type);
    if (known !== undefined) return known;
    const nest = this.routes.get(type);
    if (nest === undefined) throw new Error(`no @EventPattern handler for "${type}"`);
    const id = handlerIdOf(type, nest);
    let handler = this.handlers.get(id);
    if (handler === undefined) {
      handler = transactionHandlerOf(nest, this.call);
      this.handlers.set(id, handler);
    }
    this.byType.set(type, handler);
    return handler;
  }

  /** The calls of one transaction over `events` (planHandlerCalls). */
  plan(events: readonly PendingEvent[]): HandlerCall<TransactionHandler, PendingEvent>[] {
    return planHandlerCalls(events, (event) => this.handlerOf(event.metadata.type));
  }
}

/** Runs a Nest handler and waits for its result. */
type HookedCall = (handler: MessageHandler, data: unknown, ctx: EventBatch | EventContext) => Promise<void>;

/**
 * The transaction's view of a Nest event handler. A batch handler gets the whole list in one
 * call; a single-event handler (`@EventPattern`) is called once per event, in order per key
 * (one at a time unless it asks for `concurrency`), each call in the event's own trace and log
 * context.
 */
function transactionHandlerOf(handler: MessageHandler, call: HookedCall): TransactionHandler {
  const batchId = batchHandlerIdOf(handler);
  if (typeof batchId === 'string') {
    return (events, scope, contexts) =>
      context.with(traceContextOf(firstSampled(events), contexts), () =>
        call(handler, events, new EventBatch(scope)),
      );
  }
  const concurrency = concurrencyOf(handler);
  const one = async (event: PendingEvent, scope: TransactionScope, contexts: TraceContexts) => {
    try {
      await withEventLogContext(
        event,
        () => call(handler, event.payload, new EventContext(scope, event)),
        traceContextOf(event, contexts),
      );
    } catch (error) {
      // The failing event is known: no need to bisect the batch to find it.
      throw blame(event, error);
    }
  };
  return (events, scope, contexts) =>
    eachKeyInOrder(events, concurrency, (event) => one(event, scope, contexts));
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

/** The unit of order between handlers: the record key, or the partition for records without one. */
export const orderingKeyOf = (position: RecordPosition): string =>
  position.key === null ? `\u0000${position.topic}/${position.partition}` : position.key;

/**
 * The event's ids on every log line `fn` writes, and a trace context: by default the record's own
 * (the span that sent it), or the given one (the span processing it).
 */
export function withEventLogContext<T>(
  event: PendingEvent,
  fn: () => T,
  traceContext: Context = contextFromHeaders(event.message.headers),
): T {
  const orderId = orderIdOf(event.payload);
  return context.with(traceContext, () =>
    withLogContext(
      {
        event_id: event.metadata.id,
        event_type: event.metadata.type,
        ...(orderId === undefined ? {} : { order_id: orderId }),
      },
      fn,
    ),
  );
}

/** The saga events all carry `orderId` in their payload. */
export const orderIdOf = (payload: unknown): string | undefined =>
  typeof payload === 'object' &&
  payload !== null &&
  'orderId' in payload &&
  typeof payload.orderId === 'string'
    ? payload.orderId
    : undefined;
