import type { OrderStatus } from '../generated/prisma/enums';
import { SagaEventTypes, transition, type SagaEventType, type Transition } from '../orders/order-state';

/** What the fold needs of a consumed saga event. */
export interface SagaInput {
  readonly orderId: string;
  readonly type: SagaEventType;
}

/** One event of the batch with what it does to its order. */
export interface SagaStep<Event extends SagaInput> {
  readonly event: Event;
  readonly step: Transition;
}

const sagaTypes: ReadonlySet<string> = new Set(SagaEventTypes);

export const isSagaEventType = (type: string): type is SagaEventType => sagaTypes.has(type);

/**
 * Applies a batch of saga events to their orders in memory, in list order, starting from each
 * order's locked status (`statusOf`, which throws for an unknown order). Several events of one
 * order (e.g. a re-published payment.declined) see each other's outcome, so the result equals
 * applying them one by one: at most one step per order has `emit`, since a terminal state is never
 * left. Returns one step per event, in list order (the timeline's order).
 */
export function foldSagaEvents<Event extends SagaInput>(
  events: readonly Event[],
  statusOf: (event: Event) => OrderStatus,
): SagaStep<Event>[] {
  const current = new Map<string, OrderStatus>();
  return events.map((event) => {
    const status = current.get(event.orderId) ?? statusOf(event);
    const step = transition(status, event.type);
    current.set(event.orderId, step.next);
    return { event, step };
  });
}
