import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { CountSchema, SkuSchema, TimestampSchema } from './fields';

export const StockChangedPayloadSchema = z.strictObject({
  sku: SkuSchema,
  available: CountSchema.describe('Units that can be reserved.'),
  reserved: CountSchema.describe('Units reserved by orders.'),
  updatedAt: TimestampSchema,
});
export type StockChangedPayload = z.infer<typeof StockChangedPayloadSchema>;

export const StockChangedEvent = defineEvent({
  type: 'stock.changed',
  version: 1,
  topic: Topics.inventoryStock,
  producer: 'inventory',
  key: 'SKU',
  keySchema: SkuSchema,
  description:
    "A SKU's current stock level (changelog of a compacted topic: the latest record per SKU is its state).",
  schema: StockChangedPayloadSchema,
  tombstone: 'A null value (a tombstone) means the SKU was deleted; the payload schema does not apply to it.',
});
