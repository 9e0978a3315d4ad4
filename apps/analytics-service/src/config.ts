import type { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const analyticsConfigSchema = baseConfigSchema({ port: 3004 });

export type AnalyticsConfig = z.output<typeof analyticsConfigSchema>;
