import { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const orderConfigSchema = baseConfigSchema({ port: 3000 }).extend({
  /**
   * The longest POST /orders collects requests into one transaction (group commit), from the
   * first request of a group. After a quiet spell an order is written at once (with what arrives
   * in the same event-loop turn); while orders keep coming the window doubles up to this. 0 groups
   * only what arrives in the same event-loop turn.
   */
  ORDER_GROUP_COMMIT_WINDOW_MS: z.coerce.number().int().min(0).max(1000).default(50),
  /** A group is written as soon as it has this many orders, window or not. */
  ORDER_GROUP_COMMIT_MAX_ORDERS: z.coerce.number().int().min(1).max(1000).default(100),
});

export type OrderConfig = z.output<typeof orderConfigSchema>;
