import type { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

export const inventoryConfigSchema = baseConfigSchema({ port: 3002 });

export type InventoryConfig = z.output<typeof inventoryConfigSchema>;
