import { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const orderConfigSchema = baseConfigSchema({ port: 3000 }).extend({
  /**
   * How long POST /orders collects concurrent requests into one transaction (group commit),
   * from the first request of a group; 0 groups only what arrives in the same event-loop turn.
   */
  ORDER_GROUP_COMMIT_WINDOW_MS: z.coerce.number().int().min(0).max(1000).default(5),
  /** A group is written as soon as it has this many orders, window or not. */
  ORDER_GROUP_COMMIT_MAX_ORDERS: z.coerce.number().int().min(1).max(1000).default(100),
});

export type OrderConfig = z.output<typeof orderConfigSchema>;
