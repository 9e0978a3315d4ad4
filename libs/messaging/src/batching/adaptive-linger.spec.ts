import { describe, expect, it } from 'vitest';
import { AdaptiveLinger } from './adaptive-linger';

describe('AdaptiveLinger', () => {
  it('does not linger after a quiet spell, then doubles while work keeps coming, up to the maximum', () => {
    const linger = new AdaptiveLinger(100);
    expect(linger.next(500)).toBe(0);
    expect([1, 1, 1, 1, 1, 1, 1].map((waited) => linger.next(waited))).toEqual([5, 10, 20, 40, 80, 100, 100]);
  });

  it('drops back to nothing as soon as work had to be waited for', () => {
    const linger = new AdaptiveLinger(100);
    for (let i = 0; i < 9; i += 1) linger.next(0);
    expect(linger.next(0)).toBe(100);
    expect(linger.next(100)).toBe(0);
    expect(linger.next(3)).toBe(5);
  });

  it('never lingers with a maximum of 0, and starts at the maximum when it is below the first step', () => {
    const off = new AdaptiveLinger(0);
    expect([0, 0, 0].map((waited) => off.next(waited))).toEqual([0, 0, 0]);
    const short = new AdaptiveLinger(2, 50);
    expect([0, 0].map((waited) => short.next(waited))).toEqual([2, 2]);
  });
});
