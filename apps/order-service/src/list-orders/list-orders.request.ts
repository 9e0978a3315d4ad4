import { z } from 'zod';
import { CustomerIdSchema } from '@pipeline/contracts';
import { OrderStatus } from '../generated/prisma/enums';
import { decodeCursor, type OrderCursor } from './order-cursor';

const LimitSchema = z
  .string()
  .regex(/^(100|[1-9]\d?)$/, { error: 'expected an integer from 1 to 100' })
  .transform(Number);

const CursorParamSchema = z.string().transform((text, ctx): OrderCursor => {
  const cursor = decodeCursor(text);
  if (cursor) return cursor;
  ctx.issues.push({ code: 'custom', message: 'not a cursor this service handed out', input: text });
  return z.NEVER;
});

/** GET /orders query. Each parameter at most once; unknown parameters are refused. */
export const ListOrdersQuerySchema = z.strictObject({
  customerId: CustomerIdSchema.optional(),
  status: z.enum(OrderStatus).optional(),
  limit: LimitSchema.optional().default(20),
  cursor: CursorParamSchema.optional(),
});

export type ListOrdersQuery = z.output<typeof ListOrdersQuerySchema>;
