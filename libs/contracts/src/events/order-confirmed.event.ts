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

export const OrderConfirmedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  customerId: CustomerIdSchema,
  customerEmail: CustomerEmailSchema,
  items: OrderItemsSchema,
  total: MoneySchema,
  currency: CurrencySchema,
  confirmedAt: TimestampSchema,
});
export type OrderConfirmedPayload = z.infer<typeof OrderConfirmedPayloadSchema>;

export const OrderConfirmedEvent = defineEvent({
  type: 'order.confirmed',
  version: 1,
  topic: Topics.orders,
  producer: 'order',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: 'Payment authorized and stock reserved: the order is CONFIRMED (terminal).',
  schema: OrderConfirmedPayloadSchema,
});
