import type { SagaTopic, ServiceName } from '../topics/topic-names';
import { Topics } from '../topics/topic-names';
import type { EventType } from './event-catalogue';

/** A topic a service consumes and the event types it acts on (others of that topic it skips). */
export interface EventSubscription {
  readonly topic: SagaTopic;
  readonly types: readonly EventType[];
}

/**
 * Who consumes what, as the saga is designed. Every service also consumes its own dead-letter
 * topic (to log what landed there); that is not listed here.
 */
export const EventConsumers: Readonly<Record<ServiceName, readonly EventSubscription[]>> = {
  order: [
    { topic: Topics.payments, types: ['payment.authorized', 'payment.declined', 'payment.refunded'] },
    { topic: Topics.inventory, types: ['stock.reserved', 'stock.rejected'] },
  ],
  payment: [
    { topic: Topics.orders, types: ['order.placed'] },
    { topic: Topics.inventory, types: ['stock.rejected'] },
  ],
  inventory: [{ topic: Topics.payments, types: ['payment.authorized'] }],
  email: [{ topic: Topics.orders, types: ['order.confirmed', 'order.cancelled'] }],
  analytics: [{ topic: Topics.orders, types: ['order.placed', 'order.confirmed', 'order.cancelled'] }],
};
