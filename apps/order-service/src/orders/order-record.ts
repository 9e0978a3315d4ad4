import type { OrderItem as ContractItem } from '@pipeline/contracts';
import type { OrderStatus } from '../generated/prisma/enums';

/**
 * An order row as read with plain `pg`, with its lines: numeric(12,2) as text (exact, always 2
 * places). The lines come in line order, as JSON the same statement built (`json_agg`).
 */
export interface OrderRow {
  readonly id: string;
  readonly status: OrderStatus;
  readonly customer_id: string;
  readonly customer_email: string;
  readonly total: string;
  readonly currency: string;
  readonly created_at: Date;
  readonly items: readonly OrderItemRow[];
}

/** An order line, unit price as numeric text. */
export interface OrderItemRow {
  readonly sku: string;
  readonly quantity: number;
  readonly unit_price: string;
}

/** The fields order.placed, order.confirmed and order.cancelled share. Money as 2-place strings. */
export interface OrderFacts {
  readonly orderId: string;
  readonly customerId: string;
  readonly customerEmail: string;
  readonly items: ContractItem[];
  readonly total: string;
  readonly currency: string;
}

export function orderFacts(order: OrderRow): OrderFacts {
  return {
    orderId: order.id,
    customerId: order.customer_id,
    customerEmail: order.customer_email,
    items: order.items.map((item) => ({
      sku: item.sku,
      quantity: item.quantity,
      unitPrice: item.unit_price,
    })),
    total: order.total,
    currency: order.currency,
  };
}
