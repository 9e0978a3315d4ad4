import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './latency-stats';

describe('LatencyHistogram', () => {
  it('summarises percentiles in milliseconds', () => {
    const h = new LatencyHistogram();
    for (let ms = 1; ms <= 1000; ms++) h.record(ms);
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.p50).toBeCloseTo(500, -1);
    expect(s.p90).toBeCloseTo(900, -1);
    expect(s.p99).toBeCloseTo(990, -1);
    expect(s.p999).toBeCloseTo(999, -1);
    expect(s.max).toBeCloseTo(1000, -1);
    expect(s.p50).toBeLessThanOrEqual(s.p90);
  });

  it('keeps sub-millisecond resolution', () => {
    const h = new LatencyHistogram();
    h.record(1.25);
    expect(h.summary().max).toBeCloseTo(1.25, 2);
  });

  it('is all zeros when empty', () => {
    expect(new LatencyHistogram().summary()).toEqual({
      count: 0,
      p50: 0,
      p90: 0,
      p99: 0,
      p999: 0,
      max: 0,
      mean: 0,
    });
    expect(new LatencyHistogram().percentile(99)).toBe(0);
  });

  it('gives the same p50, p99 and max in its headline as in its summary', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 5000; i++) h.record(((i * 7919) % 3001) / 3);
    const { p50, p99, max } = h.summary();
    expect(h.headline()).toEqual({ p50, p99, max });
    expect(new LatencyHistogram().headline()).toEqual({ p50: 0, p99: 0, max: 0 });
  });
});
