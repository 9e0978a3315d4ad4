import { z } from 'zod';
import { CustomerIdSchema } from '@pipeline/contracts';

export const WindowsParamsSchema = z.object({ customerId: CustomerIdSchema });

const isoTime = z.iso
  .datetime({ offset: true, error: 'must be an ISO-8601 date-time, e.g. 2026-01-31T12:00:00Z' })
  .transform((value) => new Date(value))
  .optional();

/** `from` and `to` (both optional) bound the windows by event time: [from, to). */
export const WindowsQuerySchema = z
  .object({ from: isoTime, to: isoTime })
  // Zod runs this even when a field already failed: only compare two valid times.
  .refine(({ from, to }) => !(from instanceof Date && to instanceof Date) || from < to, {
    path: ['to'],
    message: 'must be after from',
  });
export type WindowsQuery = z.output<typeof WindowsQuerySchema>;

export interface WindowView {
  readonly windowStart: string;
  readonly windowEnd: string;
  readonly placed: number;
  readonly confirmed: number;
  readonly cancelled: number;
  /** Confirmed revenue, exact decimal string. */
  readonly revenue: string;
}

export interface CustomerWindowsView {
  readonly customerId: string;
  /** Sorted by windowStart. */
  readonly windows: WindowView[];
  /** Events of this customer (in the range, by event time) that arrived after their window closed. */
  readonly late: number;
}
