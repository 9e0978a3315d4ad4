import { EventPattern, type MessageHandler } from '@nestjs/microservices';

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
