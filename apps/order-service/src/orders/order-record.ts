import type { OrderItem as ContractItem } from '@pipeline/contracts';
import type { Prisma } from '../generated/prisma/client';

/** The order row with its lines, in line order: what the order events carry. */
export const withItems = {
  items: { orderBy: { line: 'asc' } },
} as const satisfies Prisma.OrderInclude;

export type OrderWithItems = Prisma.OrderGetPayload<{ include: typeof withItems }>;

/** The fields order.placed, order.confirmed and order.cancelled share. Money as 2-place strings. */
export interface OrderFacts {
  readonly orderId: string;
  readonly customerId: string;
  readonly customerEmail: string;
  readonly items: ContractItem[];
  readonly total: string;
  readonly currency: string;
}

export function orderFacts(order: OrderWithItems): OrderFacts {
  return {
    orderId: order.id,
    customerId: order.customerId,
    customerEmail: order.customerEmail,
    items: order.items.map((item) => ({
      sku: item.sku,
      quantity: item.quantity,
      unitPrice: item.unitPrice.toFixed(2),
    })),
    total: order.total.toFixed(2),
    currency: order.currency,
  };
}
