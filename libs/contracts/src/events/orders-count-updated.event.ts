import { z } from 'zod';
import { Topics } from '../topics/topic-names';
import { defineEvent } from './event-descriptor';
import { CountSchema, CustomerIdSchema, MoneySchema, TimestampSchema } from './fields';

/** The `orders-count` record key: `<customerId>|<windowStart ISO-8601>`. */
export const ordersCountKey = (customerId: string, windowStart: string): string =>
  `${customerId}|${windowStart}`;

/** The window start is the part after the last `|` (a customer id may itself contain one). */
export const OrdersCountKeySchema = z
  .string()
  .regex(/^.{1,64}\|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, {
    error: 'Invalid key: expected "<customerId>|<windowStart ISO-8601>"',
  })
  .describe('"<customerId>|<windowStart ISO-8601>", e.g. "c-42|2025-01-31T12:05:00.000Z".');

export const OrdersCountUpdatedPayloadSchema = z.strictObject({
  customerId: CustomerIdSchema,
  windowStart: TimestampSchema.describe('Start of the 5-minute tumbling window (inclusive), event time.'),
  windowEnd: TimestampSchema.describe('End of the window (exclusive).'),
  placed: CountSchema.describe('Orders placed in the window.'),
  confirmed: CountSchema.describe('Orders confirmed in the window.'),
  cancelled: CountSchema.describe('Orders cancelled in the window.'),
  revenue: MoneySchema.describe('Confirmed revenue in the window, exact decimal string.'),
});
export type OrdersCountUpdatedPayload = z.infer<typeof OrdersCountUpdatedPayloadSchema>;

export const OrdersCountUpdatedEvent = defineEvent({
  type: 'orders-count.updated',
  version: 1,
  topic: Topics.ordersCount,
  producer: 'analytics',
  key: 'customer id + window start',
  keySchema: OrdersCountKeySchema,
  description:
    "A customer's window counts changed (compacted topic: the latest record per key is the window's state).",
  schema: OrdersCountUpdatedPayloadSchema,
});
