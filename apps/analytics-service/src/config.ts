import { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const analyticsConfigSchema = baseConfigSchema({ port: 3004, fetchMinBytes: 64 * 1024 }).extend({
  /**
   * How long after a window's end an out-of-order event still counts in it (event time, ms).
   * Later events are recorded as late instead.
   */
  ANALYTICS_GRACE_MS: z.coerce.number().int().min(0).default(60_000),
});

export type AnalyticsConfig = z.output<typeof analyticsConfigSchema>;
