import type { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const paymentConfigSchema = baseConfigSchema({ port: 3001 });

export type PaymentConfig = z.output<typeof paymentConfigSchema>;
