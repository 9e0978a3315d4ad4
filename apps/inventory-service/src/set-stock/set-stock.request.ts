import { z } from 'zod';

/** Postgres `integer`: larger counts would fail in the database instead of at the edge. */
const MAX_UNITS = 2_147_483_647;

export const SetStockRequestSchema = z.object({
  available: z
    .int({ error: 'available must be an integer' })
    .min(0, { error: 'available must be 0 or more' })
    .max(MAX_UNITS, { error: `available must be at most ${MAX_UNITS}` })
    .describe('Units that can be reserved from now on (replaces the current number).'),
});
export type SetStockRequest = z.infer<typeof SetStockRequestSchema>;
