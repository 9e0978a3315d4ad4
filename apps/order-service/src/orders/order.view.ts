import type { Order, OrderStatus, OrderTimelineEntry, Prisma } from '../generated/prisma/client';
import { inCausalOrder } from './timeline-order';

/** What GET /orders lists: the order without its lines and timeline. */
export interface OrderSummaryView {
  readonly orderId: string;
  readonly customerId: string;
  readonly customerEmail: string;
  readonly status: OrderStatus;
  readonly reason: string | null;
  readonly total: string;
  readonly currency: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An event of the order's timeline and where it is on Kafka. */
export interface TimelineEntryView {
  readonly type: string;
  /** The event's time (ce_time), ISO-8601. */
  readonly at: string;
  /** The contract topic (`orders`, `payments`, `inventory`), without a test prefix. */
  readonly topic: string;
  /** `null` until the event has been published (order-service's own events, via its outbox). */
  readonly partition: number | null;
  /** An int64 as a decimal string; `null` until the event has been published, as `partition`. */
  readonly offset: string | null;
  /** The event's ce_id. */
  readonly eventId?: string;
}

/**
 * What GET /orders/:id answers. Money as 2-place decimal strings, times ISO-8601. The timeline
 * is in event-time order, ties in causal order (inCausalOrder), not in the order order-service
 * processed the events: events of different topics arrive in any relative order.
 */
export interface OrderView extends OrderSummaryView {
  readonly items: { sku: string; quantity: number; unitPrice: string }[];
  readonly timeline: TimelineEntryView[];
}

export const withDetails = {
  items: { orderBy: { line: 'asc' } },
  timeline: { orderBy: [{ at: 'asc' }, { id: 'asc' }] },
} as const satisfies Prisma.OrderInclude;

export type OrderWithDetails = Prisma.OrderGetPayload<{ include: typeof withDetails }>;

export function orderSummaryView(order: Order): OrderSummaryView {
  return {
    orderId: order.id,
    customerId: order.customerId,
    customerEmail: order.customerEmail,
    status: order.status,
    reason: order.reason,
    total: order.total.toFixed(2),
    currency: order.currency,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
  };
}

export function orderView(order: OrderWithDetails): OrderView {
  const { orderId, customerId, customerEmail, status, reason, total, currency, createdAt, updatedAt } =
    orderSummaryView(order);
  return {
    orderId,
    customerId,
    customerEmail,
    status,
    reason,
    total,
    currency,
    items: order.items.map((item) => ({
      sku: item.sku,
      quantity: item.quantity,
      unitPrice: item.unitPrice.toFixed(2),
    })),
    timeline: inCausalOrder(order.timeline).map(timelineEntryView),
    createdAt,
    updatedAt,
  };
}

function timelineEntryView(entry: OrderTimelineEntry): TimelineEntryView {
  return {
    type: entry.type,
    at: entry.at.toISOString(),
    topic: entry.topic,
    partition: entry.partition,
    offset: entry.offset === null ? null : entry.offset.toString(),
    ...(entry.eventId === null ? {} : { eventId: entry.eventId }),
  };
}
