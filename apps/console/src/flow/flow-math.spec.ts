import { describe, expect, it } from 'vitest';
import { consumerHealth, MAX_STALL_REASON_CHARS, percentile, ratePerSecond, stallVerdict } from './flow-math';
import type { InstanceLiveness } from './service-metrics';

describe('ratePerSecond', () => {
  it('divides the counter’s increase by the elapsed time', () => {
    expect(ratePerSecond(100, 150, 5_000)).toBe(10);
    expect(ratePerSecond(7, 7, 2_000)).toBe(0);
  });

  it('has no rate without two readings, over no time, or across a counter reset', () => {
    expect(ratePerSecond(undefined, 5, 1_000)).toBeNull();
    expect(ratePerSecond(5, null, 1_000)).toBeNull();
    expect(ratePerSecond(5, 9, 0)).toBeNull();
    expect(ratePerSecond(500, 3, 1_000)).toBeNull();
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([], 50)).toBeNull();
  });
});

describe('consumerHealth', () => {
  it('calls a group stalled when it has lag and its offsets did not move', () => {
    expect(
      consumerHealth([
        { lag: 4, committed: 10 },
        { lag: 9, committed: 10 },
      ]),
    ).toMatchObject({
      stalled: true,
    });
  });

  it('does not call a group stalled that moved, or that has nothing to read', () => {
    expect(
      consumerHealth([
        { lag: 4, committed: 10 },
        { lag: 9, committed: 12 },
      ]).stalled,
    ).toBe(false);
    expect(
      consumerHealth([
        { lag: 0, committed: 10 },
        { lag: 0, committed: 10 },
      ]).stalled,
    ).toBe(false);
    expect(consumerHealth([{ lag: 3, committed: 10 }]).stalled).toBe(false);
    expect(
      consumerHealth([
        { lag: null, committed: null },
        { lag: 3, committed: 10 },
      ]).stalled,
    ).toBe(false);
  });

  it('calls a lag growing only when it rose at each of the last intervals', () => {
    const at = (...lags: number[]) => lags.map((lag, i) => ({ lag, committed: i }));
    expect(consumerHealth(at(1, 2, 5)).growing).toBe(true);
    expect(consumerHealth(at(9, 1, 2, 5)).growing).toBe(true);
    expect(consumerHealth(at(1, 5, 5)).growing).toBe(false);
    expect(consumerHealth(at(2, 5)).growing).toBe(false);
  });
});

describe('stallVerdict', () => {
  const probe = (over: Partial<InstanceLiveness>): InstanceLiveness => ({
    url: 'http://a',
    state: 'live',
    message: undefined,
    crashes: undefined,
    stalledPartitions: [],
    ...over,
  });
  const crashing = probe({
    state: 'not-live',
    message:
      'consumer group payment-service crash-looping: 12 crashes in 64000 ms without progress, last: boom',
    crashes: 12,
  });

  it('carries the failing liveness message, also when the summed offsets still move', () => {
    expect(stallVerdict(true, [crashing])).toEqual({
      stalled: true,
      stalledReason: crashing.message,
      stalledSummary: 'crash loop: 12 crashes',
    });
    // One stuck partition of several: the group's sum moves, the service's liveness knows better.
    const stuck = probe({
      state: 'not-live',
      message: 'no progress with lag on orders/1 (lag 7, 61000 ms)',
      stalledPartitions: ['orders/1'],
    });
    expect(stallVerdict(false, [probe({ url: 'http://b' }), { ...stuck, url: 'http://c' }])).toEqual({
      stalled: true,
      stalledReason: 'http://c: no progress with lag on orders/1 (lag 7, 61000 ms)',
      stalledSummary: 'no progress: 1 partition',
    });
  });

  it('says plainly what the console saw while liveness passes, does not answer, or has nobody to ask', () => {
    expect(stallVerdict(true, [probe({})])).toEqual({
      stalled: true,
      stalledReason: 'lag and no committed progress; /health/live still passes (stall timeout not reached)',
      stalledSummary: '/health/live still passes',
    });
    expect(stallVerdict(true, [probe({ state: 'unknown', message: 'timeout' })])).toMatchObject({
      stalledReason: 'lag and no committed progress; /health/live did not answer: timeout',
      stalledSummary: '/health/live unanswered',
    });
    expect(stallVerdict(true, [])).toMatchObject({
      stalledReason: 'lag and no committed progress; no instance is up to ask /health/live',
      stalledSummary: 'no instance up',
    });
  });

  it('is no stall when the offsets move and liveness passes, or when nobody was asked', () => {
    const none = { stalled: false, stalledReason: null, stalledSummary: null };
    expect(stallVerdict(false, [probe({})])).toEqual(none);
    expect(stallVerdict(false, undefined)).toEqual(none);
    expect(stallVerdict(true, undefined)).toEqual({ ...none, stalled: true });
  });

  it('keeps a long reason readable: cut, with an ellipsis', () => {
    const long = stallVerdict(true, [{ ...crashing, message: `last: ${'x'.repeat(5_000)}` }]);
    expect(long.stalledReason).toHaveLength(MAX_STALL_REASON_CHARS); // no word ends near the limit
    expect(long.stalledReason?.endsWith('…')).toBe(true);
    // A word that ends near the limit is where it is cut.
    const words = stallVerdict(true, [{ ...crashing, message: 'lorem ipsum '.repeat(100) }]).stalledReason;
    expect(words).toMatch(/ipsum…$/);
    expect(words!.length).toBeLessThanOrEqual(MAX_STALL_REASON_CHARS);
  });
});
