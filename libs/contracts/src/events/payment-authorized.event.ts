import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import {
  CurrencySchema,
  CustomerIdSchema,
  MoneySchema,
  OrderIdSchema,
  OrderItemsSchema,
  PaymentIdSchema,
  TimestampSchema,
} from './fields';

export const PaymentAuthorizedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  paymentId: PaymentIdSchema,
  customerId: CustomerIdSchema,
  amount: MoneySchema,
  currency: CurrencySchema,
  /** The order's lines: inventory-service reserves them. */
  items: OrderItemsSchema,
  authorizedAt: TimestampSchema,
});
export type PaymentAuthorizedPayload = z.infer<typeof PaymentAuthorizedPayloadSchema>;

export const PaymentAuthorizedEvent = defineEvent({
  type: 'payment.authorized',
  version: 1,
  topic: Topics.payments,
  producer: 'payment',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: "The order's amount was authorized; inventory-service reserves its items.",
  schema: PaymentAuthorizedPayloadSchema,
});
