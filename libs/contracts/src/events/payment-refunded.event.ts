import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { CurrencySchema, MoneySchema, OrderIdSchema, PaymentIdSchema, TimestampSchema } from './fields';

export const PaymentRefundReasons = ['out_of_stock'] as const;
export type PaymentRefundReason = (typeof PaymentRefundReasons)[number];

export const PaymentRefundedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  paymentId: PaymentIdSchema,
  amount: MoneySchema,
  currency: CurrencySchema,
  reason: z.enum(PaymentRefundReasons),
  refundedAt: TimestampSchema,
});
export type PaymentRefundedPayload = z.infer<typeof PaymentRefundedPayloadSchema>;

export const PaymentRefundedEvent = defineEvent({
  type: 'payment.refunded',
  version: 1,
  topic: Topics.payments,
  producer: 'payment',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: 'An authorized payment was refunded because the stock was missing (stock.rejected).',
  schema: PaymentRefundedPayloadSchema,
});
