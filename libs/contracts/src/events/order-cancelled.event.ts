import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import {
  CurrencySchema,
  CustomerEmailSchema,
  CustomerIdSchema,
  MoneySchema,
  OrderIdSchema,
  OrderItemsSchema,
  TimestampSchema,
} from './fields';

export const OrderCancellationReasons = ['payment_declined', 'out_of_stock'] as const;
export type OrderCancellationReason = (typeof OrderCancellationReasons)[number];

export const OrderCancelledPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  customerId: CustomerIdSchema,
  customerEmail: CustomerEmailSchema,
  items: OrderItemsSchema,
  total: MoneySchema,
  currency: CurrencySchema,
  reason: z.enum(OrderCancellationReasons),
  cancelledAt: TimestampSchema,
});
export type OrderCancelledPayload = z.infer<typeof OrderCancelledPayloadSchema>;

export const OrderCancelledEvent = defineEvent({
  type: 'order.cancelled',
  version: 1,
  topic: Topics.orders,
  producer: 'order',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: 'The payment was declined or the stock was missing: the order is CANCELLED (terminal).',
  schema: OrderCancelledPayloadSchema,
});
