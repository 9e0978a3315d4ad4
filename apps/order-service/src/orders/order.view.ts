import type { Order, OrderStatus, Prisma } from '../generated/prisma/client';

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

/** What GET /orders/:id answers. Money as 2-place decimal strings, times ISO-8601. */
export interface OrderView extends OrderSummaryView {
  readonly items: { sku: string; quantity: number; unitPrice: string }[];
  readonly timeline: { type: string; at: string }[];
}

export const withDetails = {
  items: { orderBy: { line: 'asc' } },
  timeline: { orderBy: { id: 'asc' } },
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
    timeline: order.timeline.map((entry) => ({ type: entry.type, at: entry.at.toISOString() })),
    createdAt,
    updatedAt,
  };
}
