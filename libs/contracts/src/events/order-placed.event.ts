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

export const OrderPlacedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  customerId: CustomerIdSchema,
  customerEmail: CustomerEmailSchema,
  items: OrderItemsSchema,
  total: MoneySchema,
  currency: CurrencySchema,
  placedAt: TimestampSchema,
});
export type OrderPlacedPayload = z.infer<typeof OrderPlacedPayloadSchema>;

export const OrderPlacedEvent = defineEvent({
  type: 'order.placed',
  version: 1,
  topic: Topics.orders,
  producer: 'order',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: 'An order was accepted (status PENDING); starts the saga: payment-service authorizes it.',
  schema: OrderPlacedPayloadSchema,
});
