import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer';

describe('RingBuffer', () => {
  it('keeps the newest items up to its capacity, oldest first', () => {
    const ring = new RingBuffer<number>(3);
    expect(ring.latest()).toBeUndefined();
    expect(ring.last()).toEqual([]);
    for (const n of [1, 2]) ring.push(n);
    expect(ring.last()).toEqual([1, 2]);
    for (const n of [3, 4, 5]) ring.push(n);
    expect(ring.size).toBe(3);
    expect(ring.last()).toEqual([3, 4, 5]);
    expect(ring.last(2)).toEqual([4, 5]);
    expect(ring.last(10)).toEqual([3, 4, 5]);
    expect(ring.latest()).toBe(5);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });
});
