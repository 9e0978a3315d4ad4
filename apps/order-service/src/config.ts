import { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const orderConfigSchema = baseConfigSchema({ port: 3000 }).extend({
  /**
   * The most orders POST /orders writes in one transaction (group commit). One group is in flight
   * at a time, and the orders that arrive meanwhile form the next; what comes after a full group
   * forms the one after.
   */
  ORDER_GROUP_COMMIT_MAX_ORDERS: z.coerce.number().int().min(1).max(1000).default(100),
});

export type OrderConfig = z.output<typeof orderConfigSchema>;
