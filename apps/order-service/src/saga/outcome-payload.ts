import {
  OrderCancelledPayloadSchema,
  OrderConfirmedPayloadSchema,
  type OrderCancelledPayload,
  type OrderConfirmedPayload,
} from '@pipeline/contracts';
import type { OrderFacts } from '../orders/order-record';
import type { Transition } from '../orders/order-state';

/**
 * The payload of order.confirmed or order.cancelled, checked against its contract before it
 * goes to the outbox: a ZodError here is a bug, fatal, and rolls the transition back.
 */
export function outcomePayload(
  facts: OrderFacts,
  step: Transition,
  at: Date,
): OrderConfirmedPayload | OrderCancelledPayload {
  if (step.emit === 'order.confirmed') {
    return OrderConfirmedPayloadSchema.parse({ ...facts, confirmedAt: at.toISOString() });
  }
  return OrderCancelledPayloadSchema.parse({ ...facts, reason: step.reason, cancelledAt: at.toISOString() });
}
