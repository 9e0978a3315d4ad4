import { describe, expect, it } from 'vitest';
import { chunkBySize, recordBytes } from './record-size';

describe('recordBytes', () => {
  it('counts key, value and every header value in bytes, plus the framing', () => {
    const bare = recordBytes({ key: null, value: null });
    expect(
      recordBytes({ key: 'k', value: Buffer.alloc(1000), headers: { a: 'é', b: ['12', Buffer.from('3')] } }),
    ).toBe(bare + 1 + 1000 + (1 + 2) + (1 + 2) + (1 + 1));
  });
});

describe('chunkBySize', () => {
  const weigh = (n: number) => n;

  it('keeps the order and never goes over the limit with more than one item', () => {
    expect(chunkBySize([3, 3, 3, 1, 5, 2], weigh, 6)).toEqual([[3, 3], [3, 1], [5], [2]]);
  });

  it('sends an item heavier than the limit alone rather than never', () => {
    expect(chunkBySize([1, 10, 1], weigh, 4)).toEqual([[1], [10], [1]]);
    expect(chunkBySize([], weigh, 4)).toEqual([]);
  });
});
