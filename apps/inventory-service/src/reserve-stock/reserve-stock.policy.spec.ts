import { describe, expect, it } from 'vitest';
import { mergeLines, planReservation } from './reserve-stock.policy';

describe('mergeLines', () => {
  it('sums duplicate SKUs and sorts by SKU', () => {
    expect(
      mergeLines([
        { sku: 'SKU-B', quantity: 2 },
        { sku: 'SKU-A', quantity: 1 },
        { sku: 'SKU-B', quantity: 3 },
      ]),
    ).toEqual([
      { sku: 'SKU-A', quantity: 1 },
      { sku: 'SKU-B', quantity: 5 },
    ]);
  });

  it('sorts by code point, as the lock query does (COLLATE "C")', () => {
    expect(
      mergeLines([
        { sku: 'b', quantity: 1 },
        { sku: 'B', quantity: 1 },
        { sku: 'a', quantity: 1 },
      ]).map((l) => l.sku),
    ).toEqual(['B', 'a', 'b']);
  });
});

describe('planReservation', () => {
  const stock = new Map([
    ['SKU-A', 5],
    ['SKU-B', 1],
    ['SKU-ZERO', 0],
  ]);

  it('reserves when every SKU has enough, exactly at the boundary too', () => {
    expect(
      planReservation(
        mergeLines([
          { sku: 'SKU-A', quantity: 5 },
          { sku: 'SKU-B', quantity: 1 },
        ]),
        stock,
      ),
    ).toEqual({
      status: 'RESERVED',
      lines: [
        { sku: 'SKU-A', quantity: 5 },
        { sku: 'SKU-B', quantity: 1 },
      ],
    });
  });

  it('rejects the whole order when one SKU is short, naming only that SKU', () => {
    expect(
      planReservation(
        mergeLines([
          { sku: 'SKU-A', quantity: 1 },
          { sku: 'SKU-B', quantity: 2 },
        ]),
        stock,
      ),
    ).toEqual({ status: 'REJECTED', missingSkus: ['SKU-B'] });
  });

  it('counts duplicate lines together: 3 + 3 of a SKU with 5 is short', () => {
    expect(
      planReservation(
        mergeLines([
          { sku: 'SKU-A', quantity: 3 },
          { sku: 'SKU-A', quantity: 3 },
        ]),
        stock,
      ),
    ).toEqual({ status: 'REJECTED', missingSkus: ['SKU-A'] });
  });

  it('treats unknown and empty SKUs as out of stock, once each, sorted', () => {
    expect(
      planReservation(
        mergeLines([
          { sku: 'SKU-UNKNOWN', quantity: 1 },
          { sku: 'SKU-ZERO', quantity: 1 },
          { sku: 'SKU-UNKNOWN', quantity: 1 },
          { sku: 'SKU-A', quantity: 1 },
        ]),
        stock,
      ),
    ).toEqual({ status: 'REJECTED', missingSkus: ['SKU-UNKNOWN', 'SKU-ZERO'] });
  });
});
