import { describe, expect, it } from 'vitest';
import { planBatch, type StockCounts } from './reserve-stock-batch.policy';

const order = (orderId: string, ...items: [string, number][]) => ({
  orderId,
  items: items.map(([sku, quantity]) => ({ sku, quantity })),
});

const stock = (entries: Record<string, [available: number, reserved: number]>): Map<string, StockCounts> =>
  new Map(Object.entries(entries).map(([sku, [available, reserved]]) => [sku, { available, reserved }]));

const none = new Set<string>();

describe('planBatch', () => {
  it('gives the last units to the first of two competing orders and rejects the second', () => {
    const plan = planBatch([order('o1', ['HOT', 2]), order('o2', ['HOT', 1])], none, stock({ HOT: [2, 8] }));
    expect(plan.orders.map((p) => [p.order.orderId, p.plan])).toEqual([
      ['o1', { status: 'RESERVED', lines: [{ sku: 'HOT', quantity: 2 }] }],
      ['o2', { status: 'REJECTED', missingSkus: ['HOT'] }],
    ]);
    expect(plan.orders[0]!.levels).toEqual([{ sku: 'HOT', available: 0, reserved: 10 }]);
    expect(plan.orders[1]!.levels).toEqual([]);
    expect(plan.moves).toEqual([{ sku: 'HOT', quantity: 2 }]);
    expect(plan.final).toEqual(new Map([['HOT', { available: 0, reserved: 10 }]]));
  });

  it('lets later orders see what earlier ones left: one level per order, totals per SKU', () => {
    const plan = planBatch(
      [order('o1', ['A', 1], ['B', 2]), order('o2', ['B', 3]), order('o3', ['A', 4])],
      none,
      stock({ A: [5, 0], B: [5, 1] }),
    );
    expect(plan.orders.map((p) => p.plan.status)).toEqual(['RESERVED', 'RESERVED', 'RESERVED']);
    expect(plan.orders.map((p) => p.levels)).toEqual([
      [
        { sku: 'A', available: 4, reserved: 1 },
        { sku: 'B', available: 3, reserved: 3 },
      ],
      [{ sku: 'B', available: 0, reserved: 6 }],
      [{ sku: 'A', available: 0, reserved: 5 }],
    ]);
    expect(plan.moves).toEqual([
      { sku: 'A', quantity: 5 },
      { sku: 'B', quantity: 5 },
    ]);
    expect(plan.final).toEqual(
      new Map([
        ['A', { available: 0, reserved: 5 }],
        ['B', { available: 0, reserved: 6 }],
      ]),
    );
  });

  it('a rejected order reserves nothing, so a later smaller one still gets the units', () => {
    const plan = planBatch(
      [order('big', ['A', 3], ['B', 1]), order('small', ['A', 2])],
      none,
      stock({ A: [2, 0], B: [1, 0] }),
    );
    expect(plan.orders.map((p) => p.plan.status)).toEqual(['REJECTED', 'RESERVED']);
    expect(plan.moves).toEqual([{ sku: 'A', quantity: 2 }]);
  });

  it('plans an order that appears twice in the batch once, the first time', () => {
    const first = order('o1', ['A', 2]);
    const again = order('o1', ['A', 2]);
    const plan = planBatch([first, again, order('o2', ['A', 1])], none, stock({ A: [3, 0] }));
    // The first delivery is the one claimed (and the cause of what is published).
    expect(plan.orders[0]!.order).toBe(first);
    expect(plan.orders.map((p) => [p.order.orderId, p.plan.status])).toEqual([
      ['o1', 'RESERVED'],
      ['o2', 'RESERVED'],
    ]);
    expect(plan.moves).toEqual([{ sku: 'A', quantity: 3 }]);
  });

  it('skips orders already claimed: they neither reserve nor see a claim again', () => {
    const plan = planBatch(
      [order('old', ['A', 3]), order('new', ['A', 3])],
      new Set(['old']),
      stock({ A: [3, 0] }),
    );
    expect(plan.orders.map((p) => [p.order.orderId, p.plan.status])).toEqual([['new', 'RESERVED']]);
    expect(plan.moves).toEqual([{ sku: 'A', quantity: 3 }]);
  });

  it('merges an order with the same SKU on two lines before checking it (mergeLines)', () => {
    const plan = planBatch(
      [order('o1', ['A', 3], ['B', 1], ['A', 3])],
      none,
      stock({ A: [5, 0], B: [1, 0] }),
    );
    expect(plan.orders[0]!.lines).toEqual([
      { sku: 'A', quantity: 6 },
      { sku: 'B', quantity: 1 },
    ]);
    expect(plan.orders[0]!.plan).toEqual({ status: 'REJECTED', missingSkus: ['A'] });
    expect(plan.moves).toEqual([]);

    const fits = planBatch([order('o2', ['A', 2], ['A', 3])], none, stock({ A: [5, 0] }));
    expect(fits.orders[0]!.levels).toEqual([{ sku: 'A', available: 0, reserved: 5 }]);
    expect(fits.moves).toEqual([{ sku: 'A', quantity: 5 }]);
  });

  it('rejects unknown SKUs and moves nothing for an all-rejected batch', () => {
    const plan = planBatch([order('o1', ['NOPE', 1])], none, stock({}));
    expect(plan.orders[0]!.plan).toEqual({ status: 'REJECTED', missingSkus: ['NOPE'] });
    expect(plan.moves).toEqual([]);
    expect(plan.final.size).toBe(0);
  });
});
