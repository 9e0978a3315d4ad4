import type { Sql } from '@pipeline/database';
import { windowKey, type FoldedWindow, type WindowCounts } from '@pipeline/contracts';

// FOR UPDATE, sorted by the primary key, the same order the upsert below writes in: two batches
// that share windows (one customer's orders spread over partitions) queue on the first shared row
// instead of deadlocking. A window with no row yet cannot be locked; the upsert adds to it, so a
// concurrent creation loses nothing (see shiftCounts for what is published then).
const LOCK_WINDOWS = `
  SELECT customer_id, window_start, placed, confirmed, cancelled, revenue::text AS revenue
    FROM customer_windows
   WHERE (customer_id, window_start) IN (SELECT * FROM unnest($1::text[], $2::timestamptz[]))
   ORDER BY customer_id, window_start FOR UPDATE`;

// One statement for every window of the batch; it adds what the batch counted and returns the
// row as it is now.
const ADD_TO_WINDOWS = `
  INSERT INTO customer_windows AS w (customer_id, window_start, window_end, placed, confirmed, cancelled, revenue)
  SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::int[], $5::int[], $6::int[], $7::numeric[])
   ORDER BY 1, 2
  ON CONFLICT (customer_id, window_start) DO UPDATE SET
    placed = w.placed + EXCLUDED.placed,
    confirmed = w.confirmed + EXCLUDED.confirmed,
    cancelled = w.cancelled + EXCLUDED.cancelled,
    revenue = w.revenue + EXCLUDED.revenue,
    updated_at = now()
  RETURNING customer_id, window_start, placed, confirmed, cancelled, revenue::text AS revenue`;

// ON CONFLICT DO NOTHING on the event id: recorded once, whatever re-runs.
const RECORD_LATE_EVENTS = `
  INSERT INTO late_events (event_id, customer_id, type, event_time)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[])
  ON CONFLICT DO NOTHING`;

interface WindowRow extends WindowCounts {
  readonly customer_id: string;
  readonly window_start: Date;
}

/** Locks and reads the existing rows of the given windows, by windowKey. */
export async function lockWindows(
  sql: Sql,
  windows: readonly { customerId: string; windowStart: Date }[],
): Promise<Map<string, WindowCounts>> {
  const rows = await sql.query<WindowRow>(LOCK_WINDOWS, [
    windows.map((w) => w.customerId),
    windows.map((w) => w.windowStart.toISOString()),
  ]);
  return new Map(rows.map((row) => [windowKey(row.customer_id, row.window_start), countsOf(row)]));
}

/** Adds each window's `added` to its row (creating it); returns the rows' counts now, by windowKey. */
export async function addToWindows(
  sql: Sql,
  windows: readonly FoldedWindow[],
): Promise<Map<string, WindowCounts>> {
  if (windows.length === 0) return new Map();
  const rows = await sql.query<WindowRow>(ADD_TO_WINDOWS, [
    windows.map((w) => w.customerId),
    windows.map((w) => w.window.start.toISOString()),
    windows.map((w) => w.window.end.toISOString()),
    windows.map((w) => w.added.placed),
    windows.map((w) => w.added.confirmed),
    windows.map((w) => w.added.cancelled),
    windows.map((w) => w.added.revenue),
  ]);
  return new Map(rows.map((row) => [windowKey(row.customer_id, row.window_start), countsOf(row)]));
}

export interface LateEventRow {
  readonly eventId: string;
  readonly customerId: string;
  /** ce_type, e.g. order.placed. */
  readonly type: string;
  readonly eventTime: Date;
}

export async function recordLateEvents(sql: Sql, late: readonly LateEventRow[]): Promise<void> {
  if (late.length === 0) return;
  await sql.execute(RECORD_LATE_EVENTS, [
    late.map((l) => l.eventId),
    late.map((l) => l.customerId),
    late.map((l) => l.type),
    late.map((l) => l.eventTime.toISOString()),
  ]);
}

const countsOf = (row: WindowRow): WindowCounts => ({
  placed: row.placed,
  confirmed: row.confirmed,
  cancelled: row.cancelled,
  revenue: row.revenue,
});
