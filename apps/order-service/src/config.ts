import type { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const orderConfigSchema = baseConfigSchema({ port: 3000 });

export type OrderConfig = z.output<typeof orderConfigSchema>;
