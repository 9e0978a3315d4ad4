import { orderingKeyOf, type ConsumedEvent } from './consumed-event';

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
