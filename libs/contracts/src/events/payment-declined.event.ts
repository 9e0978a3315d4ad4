import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { CurrencySchema, MoneySchema, OrderIdSchema, PaymentIdSchema, TimestampSchema } from './fields';

export const PaymentDeclinedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  /** Absent when the payment was declined before one was recorded. */
  paymentId: PaymentIdSchema.optional(),
  amount: MoneySchema,
  currency: CurrencySchema,
  reason: z
    .string()
    .min(1)
    .describe('Why, machine-readable, e.g. "amount_over_limit" or "customer_blocked".'),
  declinedAt: TimestampSchema,
});
export type PaymentDeclinedPayload = z.infer<typeof PaymentDeclinedPayloadSchema>;

export const PaymentDeclinedEvent = defineEvent({
  type: 'payment.declined',
  version: 1,
  topic: Topics.payments,
  producer: 'payment',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: 'The payment was declined; order-service cancels the order (reason payment_declined).',
  schema: PaymentDeclinedPayloadSchema,
});
