import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { OrderIdSchema, SkuSchema, TimestampSchema } from './fields';

export const StockRejectionReasons = ['out_of_stock'] as const;
export type StockRejectionReason = (typeof StockRejectionReasons)[number];

export const StockRejectedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  missingSkus: z.array(SkuSchema).min(1).describe('The SKUs that could not be reserved.'),
  reason: z.enum(StockRejectionReasons),
  rejectedAt: TimestampSchema,
});
export type StockRejectedPayload = z.infer<typeof StockRejectedPayloadSchema>;

export const StockRejectedEvent = defineEvent({
  type: 'stock.rejected',
  version: 1,
  topic: Topics.inventory,
  producer: 'inventory',
  key: 'order id',
  keySchema: OrderIdSchema,
  description:
    'Some items were out of stock, nothing was reserved; order-service cancels the order, payment-service refunds.',
  schema: StockRejectedPayloadSchema,
});
