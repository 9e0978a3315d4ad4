import { describe, expect, it } from 'vitest';
import { WINDOW_MS } from './tumbling-window';
import {
  foldOrderCounts,
  partitionKey,
  shiftCounts,
  windowKey,
  type OrderCount,
  type WindowChange,
  type WindowCounts,
} from './window-fold';

const MINUTE = 60_000;
const T = Date.parse('2026-01-31T12:00:00.000Z'); // a window start
const GRACE_MS = MINUTE;
const none = {
  watermarks: new Map<string, Date>(),
  windows: new Map<string, WindowCounts>(),
  graceMs: GRACE_MS,
};

let seq = 0;
function event(
  customerId: string,
  atMs: number,
  change: WindowChange = { placed: 1 },
  partition = 0,
): OrderCount<string> {
  seq += 1;
  return { ref: `e${seq}`, topic: 'orders', partition, customerId, eventTime: new Date(atMs), change };
}

describe('foldOrderCounts', () => {
  it('counts two events of one window with running counts, and adds exact revenue', () => {
    const first = event('a', T + 1000, { confirmed: 1, revenue: '0.10' });
    const second = event('a', T + 2000, { confirmed: 1, revenue: '0.20' });
    const fold = foldOrderCounts([first, second], none);
    expect(fold.counted.map((c) => [c.ref, c.counts])).toEqual([
      [first.ref, { placed: 0, confirmed: 1, cancelled: 0, revenue: '0.10' }],
      [second.ref, { placed: 0, confirmed: 2, cancelled: 0, revenue: '0.30' }],
    ]);
    expect(fold.windows).toEqual([
      {
        customerId: 'a',
        window: { start: new Date(T), end: new Date(T + WINDOW_MS) },
        added: { placed: 0, confirmed: 2, cancelled: 0, revenue: '0.30' },
        counts: { placed: 0, confirmed: 2, cancelled: 0, revenue: '0.30' },
      },
    ]);
    expect(fold.late).toEqual([]);
    expect(fold.watermarks).toEqual([{ topic: 'orders', partition: 0, maxEventTime: new Date(T + 2000) }]);
  });

  it('starts from the stored row and adds only what the batch counted', () => {
    const windows = new Map([
      [windowKey('a', new Date(T)), { placed: 2, confirmed: 1, cancelled: 0, revenue: '9.99' }],
    ]);
    const fold = foldOrderCounts([event('a', T + 1000, { cancelled: 1 })], { ...none, windows });
    expect(fold.counted[0]?.counts).toEqual({ placed: 2, confirmed: 1, cancelled: 1, revenue: '9.99' });
    expect(fold.windows[0]?.added).toEqual({ placed: 0, confirmed: 0, cancelled: 1, revenue: '0.00' });
  });

  it('records an event beyond the grace period as late, judged by the watermark the earlier events moved', () => {
    const ahead = event('d', T + 2 * WINDOW_MS);
    const tooLate = event('d', T + 2 * MINUTE); // window ended 5 min before the watermark; grace is 1 min
    const straggler = event('d', T + 2 * WINDOW_MS - 30_000); // window ended 30 s before: inside grace
    const fold = foldOrderCounts([ahead, tooLate, straggler], none);
    expect(fold.late).toEqual([
      {
        ref: tooLate.ref,
        customerId: 'd',
        window: { start: new Date(T), end: new Date(T + WINDOW_MS) },
        eventTime: tooLate.eventTime,
        watermark: ahead.eventTime,
      },
    ]);
    expect(fold.counted.map((c) => c.ref)).toEqual([ahead.ref, straggler.ref]);
    // The late event's window is not written at all; the watermark never moves back.
    expect(fold.windows.map((w) => w.window.start)).toEqual([
      new Date(T + 2 * WINDOW_MS),
      new Date(T + WINDOW_MS),
    ]);
    expect(fold.watermarks).toEqual([{ topic: 'orders', partition: 0, maxEventTime: ahead.eventTime }]);
  });

  it('judges lateness against the stored watermark of the batch start', () => {
    const watermarks = new Map([[partitionKey('orders', 0), new Date(T + 3 * WINDOW_MS)]]);
    const fold = foldOrderCounts([event('d', T)], { ...none, watermarks });
    expect(fold.late).toHaveLength(1);
    expect(fold.watermarks).toEqual([]);
  });

  it('keeps a watermark per partition: a late-looking event on another partition still counts', () => {
    const ahead = event('c', T + 3 * WINDOW_MS, { placed: 1 }, 0);
    const otherPartition = event('c', T + 1000, { placed: 1 }, 1);
    const samePartition = event('c', T + 2000, { placed: 1 }, 0);
    const fold = foldOrderCounts([ahead, otherPartition, samePartition], none);
    expect(fold.counted.map((c) => c.ref)).toEqual([ahead.ref, otherPartition.ref]);
    expect(fold.late.map((l) => l.ref)).toEqual([samePartition.ref]);
    expect(fold.watermarks).toEqual([
      { topic: 'orders', partition: 0, maxEventTime: ahead.eventTime },
      { topic: 'orders', partition: 1, maxEventTime: otherPartition.eventTime },
    ]);
  });

  it('gives the same windows, late events and watermarks however a replay splits and interleaves the partitions', () => {
    const partitions = [0, 1, 2].map((partition) =>
      Array.from({ length: 12 }, (_, i) =>
        event(
          `cust-${(i + partition) % 3}`,
          T + ((i * 7 + partition * 5) % 23) * MINUTE,
          i % 4 === 3 ? { confirmed: 1, revenue: `${i}.${partition}5` } : { placed: 1 },
          partition,
        ),
      ),
    );
    const reference = replay(partitions, [partitions.flat()]);
    expect(reference.late.size).toBeGreaterThan(0);
    expect(reference.windows.size).toBeGreaterThan(1);

    // One event per batch, round-robin over the partitions.
    const oneByOne = Array.from({ length: 12 }, (_, i) => partitions.map((events) => [events[i]!])).flat();
    // Uneven batches, partitions in reverse order, each batch mixing two partitions.
    const uneven = [
      [...partitions[2]!.slice(0, 5), ...partitions[1]!.slice(0, 1)],
      [...partitions[0]!.slice(0, 7), ...partitions[2]!.slice(5, 6)],
      [...partitions[1]!.slice(1), ...partitions[2]!.slice(6)],
      partitions[0]!.slice(7),
    ];
    for (const batches of [oneByOne, uneven]) expect(replay(partitions, batches)).toEqual(reference);
  });
});

describe('shiftCounts', () => {
  it('leaves published counts alone when the row holds what the fold expected', () => {
    const after = { placed: 1, confirmed: 0, cancelled: 0, revenue: '0.00' };
    const folded = { placed: 2, confirmed: 1, cancelled: 0, revenue: '1.00' };
    expect(shiftCounts(after, folded, folded)).toEqual(after);
  });

  it('moves published counts by what a concurrent transaction added to a new window', () => {
    const after = { placed: 1, confirmed: 1, cancelled: 0, revenue: '1.00' };
    const folded = { placed: 2, confirmed: 1, cancelled: 0, revenue: '1.00' };
    const stored = { placed: 5, confirmed: 2, cancelled: 1, revenue: '3.50' };
    expect(shiftCounts(after, folded, stored)).toEqual({
      placed: 4,
      confirmed: 2,
      cancelled: 1,
      revenue: '3.50',
    });
  });
});

interface Replayed {
  readonly windows: Map<string, WindowCounts>;
  readonly watermarks: Map<string, Date>;
  readonly late: Set<string>;
  /** Per partition, what each of its events published or that it was late: the same in any split. */
  readonly outcomes: Map<string, string>;
}

/** Folds `batches` one after the other against an in-memory store, as the handler does against its tables. */
function replay(
  partitions: readonly OrderCount<string>[][],
  batches: readonly OrderCount<string>[][],
): Replayed {
  const all = new Set(partitions.flat().map((e) => e.ref));
  expect(new Set(batches.flat().map((e) => e.ref))).toEqual(all);
  const store: Replayed = { windows: new Map(), watermarks: new Map(), late: new Set(), outcomes: new Map() };
  for (const batch of batches) {
    const fold = foldOrderCounts(batch, {
      watermarks: store.watermarks,
      windows: store.windows,
      graceMs: GRACE_MS,
    });
    for (const w of fold.windows) store.windows.set(windowKey(w.customerId, w.window.start), w.counts);
    for (const w of fold.watermarks) store.watermarks.set(partitionKey(w.topic, w.partition), w.maxEventTime);
    for (const l of fold.late) store.late.add(l.ref);
    for (const c of fold.counted)
      store.outcomes.set(c.ref, `counted in ${c.customerId}@${c.window.start.toISOString()}`);
    for (const l of fold.late) store.outcomes.set(l.ref, `late against ${l.watermark.toISOString()}`);
  }
  return store;
}
