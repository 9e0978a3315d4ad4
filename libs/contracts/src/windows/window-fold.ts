import { formatCents, toCents } from '../money/money';
import { isLate, type Window, windowOf } from './tumbling-window';

/** What one order event adds to its window. */
export interface WindowChange {
  readonly placed?: 1;
  readonly confirmed?: 1;
  readonly cancelled?: 1;
  /** Confirmed revenue, exact decimal string. */
  readonly revenue?: string;
}

/** A window's counts as stored and published; revenue always with 2 places. */
export interface WindowCounts {
  readonly placed: number;
  readonly confirmed: number;
  readonly cancelled: number;
  readonly revenue: string;
}

/** One order event to fold; `ref` is whatever the caller needs back (the consumed event). */
export interface OrderCount<Ref> {
  readonly ref: Ref;
  readonly topic: string;
  readonly partition: number;
  readonly customerId: string;
  /** `ce_time`: windows are of event time, not arrival time. */
  readonly eventTime: Date;
  readonly change: WindowChange;
}

/** The state a batch starts from, as read (and locked) before folding it. */
export interface FoldStart {
  /** Watermark per partitionKey; absent when nothing was seen on that partition yet. */
  readonly watermarks: ReadonlyMap<string, Date>;
  /** Counts per windowKey of the windows that exist; absent ones start at zero. */
  readonly windows: ReadonlyMap<string, WindowCounts>;
  readonly graceMs: number;
}

export interface CountedEvent<Ref> {
  readonly ref: Ref;
  readonly customerId: string;
  readonly window: Window;
  /** The window's counts right after this event: what `orders-count.updated` carries. */
  readonly counts: WindowCounts;
}

export interface LateEvent<Ref> {
  readonly ref: Ref;
  readonly customerId: string;
  readonly window: Window;
  readonly eventTime: Date;
  /** The partition's watermark this event was judged against. */
  readonly watermark: Date;
}

export interface FoldedWindow {
  readonly customerId: string;
  readonly window: Window;
  /** What the batch added: the upsert adds it, so a row created concurrently loses nothing. */
  readonly added: WindowCounts;
  /** The counts after the batch, if the row held `FoldStart.windows` when the batch began. */
  readonly counts: WindowCounts;
}

export interface FoldedWatermark {
  readonly topic: string;
  readonly partition: number;
  readonly maxEventTime: Date;
}

export interface Fold<Ref> {
  /** In input order. */
  readonly counted: CountedEvent<Ref>[];
  /** In input order. */
  readonly late: LateEvent<Ref>[];
  /** Every window at least one event was counted in. */
  readonly windows: FoldedWindow[];
  /** The partitions whose watermark moved, with its new value. */
  readonly watermarks: FoldedWatermark[];
}

export const partitionKey = (topic: string, partition: number): string => `${topic}/${partition}`;

export const windowKey = (customerId: string, windowStart: Date): string =>
  `${customerId}\u0000${windowStart.getTime()}`;

/**
 * Applies a batch of order events, in offset order per partition, as if one by one: each event
 * meets its partition's watermark as moved by the events before it (late, or counted), and each
 * counted event sees its window's counts including every earlier event of the batch. Only the
 * order within a partition matters to lateness, so the result is the same however a partition's
 * events are split into batches or interleaved with other partitions; window totals are sums, the
 * same in any order.
 */
export function foldOrderCounts<Ref>(events: readonly OrderCount<Ref>[], start: FoldStart): Fold<Ref> {
  const watermarks = new Map(start.watermarks);
  const moved = new Map<string, FoldedWatermark>();
  const windows = new Map<string, { customerId: string; window: Window; base: Cents; counts: Cents }>();
  const counted: CountedEvent<Ref>[] = [];
  const late: LateEvent<Ref>[] = [];
  for (const event of events) {
    const { ref, topic, partition, customerId, eventTime, change } = event;
    const window = windowOf(eventTime);
    const pKey = partitionKey(topic, partition);
    const watermark = watermarks.get(pKey);
    if (watermark === undefined || watermark.getTime() < eventTime.getTime()) {
      watermarks.set(pKey, eventTime);
      moved.set(pKey, { topic, partition, maxEventTime: eventTime });
    }
    if (watermark !== undefined && isLate(window, start.graceMs, watermark)) {
      late.push({ ref, customerId, window, eventTime, watermark });
      continue;
    }
    const wKey = windowKey(customerId, window.start);
    let state = windows.get(wKey);
    if (state === undefined) {
      const base = toCounting(start.windows.get(wKey));
      state = { customerId, window, base, counts: base };
      windows.set(wKey, state);
    }
    state.counts = plus(state.counts, change);
    counted.push({ ref, customerId, window, counts: fromCounting(state.counts) });
  }
  return {
    counted,
    late,
    windows: [...windows.values()].map(({ customerId, window, base, counts }) => ({
      customerId,
      window,
      added: fromCounting(minus(counts, base)),
      counts: fromCounting(counts),
    })),
    watermarks: [...moved.values()],
  };
}

/**
 * `counts` moved by what the stored row holds beyond what the fold expected (`stored - folded`):
 * `counts` itself, unless another transaction created the window after this one read it (a row that
 * did not exist cannot be locked), so this batch's events come after that transaction's.
 */
export function shiftCounts(counts: WindowCounts, folded: WindowCounts, stored: WindowCounts): WindowCounts {
  return fromCounting(plusCounting(toCounting(counts), minus(toCounting(stored), toCounting(folded))));
}

/** Counts with revenue in integer cents: exact. */
interface Cents {
  readonly placed: number;
  readonly confirmed: number;
  readonly cancelled: number;
  readonly revenue: bigint;
}

const toCounting = (counts: WindowCounts | undefined): Cents =>
  counts === undefined
    ? { placed: 0, confirmed: 0, cancelled: 0, revenue: 0n }
    : {
        placed: counts.placed,
        confirmed: counts.confirmed,
        cancelled: counts.cancelled,
        revenue: toCents(counts.revenue),
      };

const fromCounting = (counts: Cents): WindowCounts => ({
  placed: counts.placed,
  confirmed: counts.confirmed,
  cancelled: counts.cancelled,
  revenue: formatCents(counts.revenue),
});

const plus = (counts: Cents, change: WindowChange): Cents => ({
  placed: counts.placed + (change.placed ?? 0),
  confirmed: counts.confirmed + (change.confirmed ?? 0),
  cancelled: counts.cancelled + (change.cancelled ?? 0),
  revenue: counts.revenue + (change.revenue === undefined ? 0n : toCents(change.revenue)),
});

const plusCounting = (a: Cents, b: Cents): Cents => ({
  placed: a.placed + b.placed,
  confirmed: a.confirmed + b.confirmed,
  cancelled: a.cancelled + b.cancelled,
  revenue: a.revenue + b.revenue,
});

const minus = (a: Cents, b: Cents): Cents => ({
  placed: a.placed - b.placed,
  confirmed: a.confirmed - b.confirmed,
  cancelled: a.cancelled - b.cancelled,
  revenue: a.revenue - b.revenue,
});
