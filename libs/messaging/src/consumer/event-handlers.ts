import { EventPattern } from '@nestjs/microservices';
import type { MessageHandler } from '@nestjs/microservices';
import { context } from '@opentelemetry/api';
import { isObservable, lastValueFrom } from 'rxjs';
import type { TraceContextOf, TransactionHandler } from './batch-transaction';
import { orderingKeyOf, type PendingEvent } from './consumed-event';
import { EventBatch, EventContext, blame, type TransactionScope } from './event-batch';
import { unwrapHandlerError } from './event-error.filter';
import { withEventLogContext } from './event-log-context';

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

/**
 * What identifies a handler to the planner: the method of a batch handler (Nest registers one
 * proxy per pattern, but a method for several types is one handler), or the event type.
 */
export function handlerIdOf(type: string, handler: MessageHandler): string {
  const batchId = (handler.extras as Record<string, unknown> | undefined)?.[BATCH_HANDLER];
  return typeof batchId === 'string' ? batchId : type;
}

/** Runs a Nest handler inside Nest's processing hooks and waits for its result. */
export type HookedCall = (
  handler: MessageHandler,
  data: unknown,
  ctx: EventBatch | EventContext,
) => Promise<void>;

/**
 * The transaction's view of a Nest event handler. A batch handler gets the whole list in one
 * call; a single-event handler (`@EventPattern`) is called once per event, in order per key
 * (one at a time unless it asks for `concurrency`), each call in the event's own trace and log
 * context.
 */
export function transactionHandlerOf(
  type: string,
  handler: MessageHandler,
  call: HookedCall,
): TransactionHandler {
  const batchId = (handler.extras as Record<string, unknown> | undefined)?.[BATCH_HANDLER];
  if (typeof batchId === 'string') {
    return {
      name: batchId,
      invoke: (events, scope, traceContextOf) =>
        context.with(traceContextOf(firstSampled(events)), () =>
          call(handler, events, new EventBatch(scope)),
        ),
    };
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
  return {
    name: type,
    invoke: (events, scope, traceContextOf) =>
      eachKeyInOrder(events, concurrency, (event) => one(event, scope, traceContextOf)),
  };
}

/**
 * `@EventPattern(type, { concurrency: n })`: up to n events of different keys at once (one key's
 * events still one after the other), for a handler that waits on something outside the database,
 * such as an SMTP server. The calls share the transaction's connection, so only a handler whose
 * events do not read-modify-write the same rows may ask for it. Default 1.
 */
function concurrencyOf(handler: MessageHandler): number {
  const value = (handler.extras as Record<string, unknown> | undefined)?.['concurrency'];
  return typeof value === 'number' && Number.isInteger(value) && value > 1 ? value : 1;
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
export async function settleHandlerResult(result: unknown): Promise<void> {
  try {
    const value: unknown = await result;
    if (isObservable(value)) await lastValueFrom(value, { defaultValue: undefined });
  } catch (error) {
    throw unwrapHandlerError(error);
  }
}
