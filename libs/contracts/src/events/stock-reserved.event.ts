import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { OrderIdSchema, StockItemsSchema, TimestampSchema } from './fields';

export const StockReservedPayloadSchema = z.strictObject({
  orderId: OrderIdSchema,
  items: StockItemsSchema,
  reservedAt: TimestampSchema,
});
export type StockReservedPayload = z.infer<typeof StockReservedPayloadSchema>;

export const StockReservedEvent = defineEvent({
  type: 'stock.reserved',
  version: 1,
  topic: Topics.inventory,
  producer: 'inventory',
  key: 'order id',
  keySchema: OrderIdSchema,
  description: 'Every item of the order was reserved (all or none); order-service confirms the order.',
  schema: StockReservedPayloadSchema,
});
