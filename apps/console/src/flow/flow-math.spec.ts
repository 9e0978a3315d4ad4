import { describe, expect, it } from 'vitest';
import { consumerHealth, percentile, ratePerSecond } from './flow-math';

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
