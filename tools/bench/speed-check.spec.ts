import { afterEach, describe, expect, it, vi } from 'vitest';
import { SpeedSampler, speedSpread, withSpeedCheck } from './speed-check';

afterEach(() => {
  vi.useRealTimers();
});

describe('SpeedSampler', () => {
  it('times one round of the fixed work per interval and gives their mean, in CPU ms', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    // Full rounds: the thread's CPU time advances in steps of up to 4 ms on these machines.
    const sampler = new SpeedSampler(2_000);
    vi.advanceTimersByTime(6_000);
    sampler.stop();
    const ms = sampler.meanMs;
    expect(Number.isFinite(ms)).toBe(true);
    expect(ms).toBeGreaterThan(0);
  });

  it('has nothing to say when no interval passed', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const sampler = new SpeedSampler(2_000, 50);
    vi.advanceTimersByTime(1_999);
    sampler.stop();
    expect(sampler.meanMs).toBeUndefined();
  });

  it('stops sampling when stopped', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const sampler = new SpeedSampler(2_000, 50);
    sampler.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(6_000);
    expect(sampler.meanMs).toBeUndefined();
  });
});

describe('speedSpread', () => {
  it('is the slowest check over the fastest, minus one', () => {
    expect(speedSpread([10, 12.5, 11])).toBeCloseTo(0.25);
    expect(speedSpread([14, 14])).toBe(0);
  });

  it('needs two valid checks', () => {
    expect(speedSpread([14])).toBeUndefined();
    expect(speedSpread([14, Number.NaN, 0])).toBeUndefined();
  });
});

describe('withSpeedCheck', () => {
  it('gives the work’s value, and stops sampling when the work fails', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    expect((await withSpeedCheck(() => Promise.resolve(42))).value).toBe(42);
    await expect(withSpeedCheck(() => Promise.reject(new Error('load step failed')))).rejects.toThrow(
      'load step failed',
    );
    expect(vi.getTimerCount()).toBe(0);
  });
});
