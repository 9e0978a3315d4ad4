import type { OrderCancellationReason } from '@pipeline/contracts';
import { OrderStatus } from '../generated/prisma/enums';

/** The events of other services that move an order along its saga. */
export const SagaEventTypes = [
  'payment.authorized',
  'payment.declined',
  'payment.refunded',
  'stock.reserved',
  'stock.rejected',
] as const;
export type SagaEventType = (typeof SagaEventTypes)[number];

export type OrderOutcomeEvent = 'order.confirmed' | 'order.cancelled';

export interface Transition {
  readonly next: OrderStatus;
  /** Set when the order is cancelled by this event. */
  readonly reason?: OrderCancellationReason;
  /** The event to publish; absent when the event only adds to the timeline. */
  readonly emit?: OrderOutcomeEvent;
}

/**
 * What each event does to a PENDING order. payment.authorized and payment.refunded decide
 * nothing: stock.reserved or stock.rejected always follows an authorization, and a refund
 * follows stock.rejected (they travel on different topics, so the refund may arrive first).
 */
const FROM_PENDING: Readonly<Record<SagaEventType, Transition>> = {
  'payment.authorized': { next: OrderStatus.PENDING },
  'payment.refunded': { next: OrderStatus.PENDING },
  'payment.declined': { next: OrderStatus.CANCELLED, reason: 'payment_declined', emit: 'order.cancelled' },
  'stock.reserved': { next: OrderStatus.CONFIRMED, emit: 'order.confirmed' },
  'stock.rejected': { next: OrderStatus.CANCELLED, reason: 'out_of_stock', emit: 'order.cancelled' },
};

export const isTerminal = (status: OrderStatus): boolean => status !== OrderStatus.PENDING;

/**
 * The order's state machine, pure. A terminal state (CONFIRMED, CANCELLED) is never left: a
 * late or out-of-order event after it changes nothing and publishes nothing.
 */
export function transition(status: OrderStatus, event: SagaEventType): Transition {
  return isTerminal(status) ? { next: status } : FROM_PENDING[event];
}
