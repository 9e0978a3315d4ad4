import { describe, expect, it } from 'vitest';
import { RetriableError } from '@pipeline/messaging';
import { OrderGroupCommit, type WriteOrderGroup } from './order-group-commit';
import type { PendingOrder, PlaceOrderResult } from './pending-order';

let sequence = 0;
const order = (key?: string, hash = 'h1'): PendingOrder =>
  ({
    orderId: `order-${++sequence}`,
    ...(key === undefined ? {} : { idempotency: { key, requestHash: hash } }),
  }) as PendingOrder;

/**
 * A database in memory that writes a group all or nothing, like the transaction: it records each
 * group it was given, and what the idempotency keys point to once a group committed.
 */
function fakeDatabase(fails: (orders: readonly PendingOrder[]) => Error | undefined = () => undefined) {
  const groups: string[][] = [];
  const keys = new Map<string, { hash: string; orderId: string }>();
  const write: WriteOrderGroup = async (orders) => {
    groups.push(orders.map((o) => o.orderId));
    await Promise.resolve();
    const failure = fails(orders);
    if (failure) throw failure;
    const claimed = new Map(keys);
    const results = orders.map((o): PlaceOrderResult => {
      if (o.idempotency === undefined) return { kind: 'placed', orderId: o.orderId };
      const earlier = claimed.get(o.idempotency.key);
      if (earlier === undefined) {
        claimed.set(o.idempotency.key, { hash: o.idempotency.requestHash, orderId: o.orderId });
        return { kind: 'placed', orderId: o.orderId };
      }
      return earlier.hash === o.idempotency.requestHash
        ? { kind: 'replayed', orderId: earlier.orderId, status: 'PENDING' }
        : { kind: 'conflict', orderId: earlier.orderId };
    });
    for (const [key, value] of claimed) keys.set(key, value);
    return results;
  };
  return { write, groups };
}

describe('OrderGroupCommit', () => {
  it('writes concurrent orders in one group and answers each with its own result', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { windowMs: 5, maxOrders: 100 });
    const orders = [order(), order(), order()];
    const results = await Promise.all(orders.map((o) => commit.place(o)));
    expect(db.groups).toEqual([orders.map((o) => o.orderId)]);
    expect(results).toEqual(orders.map((o) => ({ kind: 'placed', orderId: o.orderId })));
  });

  it('writes an order after a quiet spell at once, and lets the window open while orders keep coming', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { windowMs: 1_000, maxOrders: 100 });
    const [a, b, c, d] = [order(), order(), order(), order()];
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    // Quiet before it: the group closes in this event-loop turn, b (next turn) is not in it.
    const first = commit.place(a);
    await nextTurn();
    const second = commit.place(b);
    await Promise.all([first, second]);
    expect(db.groups[0]).toEqual([a.orderId]);

    // Orders keep coming: c's group waits (5 ms, doubling up to the window) and d, a turn later, joins it.
    const third = commit.place(c);
    await nextTurn();
    const fourth = commit.place(d);
    await Promise.all([third, fourth]);
    expect(db.groups.at(-1)).toEqual([c.orderId, d.orderId]);
  });

  it('closes a group at maxOrders without waiting for the window', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { windowMs: 60_000, maxOrders: 2 });
    const orders = [order(), order(), order(), order()];
    await Promise.all(orders.map((o) => commit.place(o)));
    expect(db.groups.map((group) => group.length)).toEqual([2, 2]);
  });

  it('with a window of 0, groups what arrives in the same event-loop turn', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { windowMs: 0, maxOrders: 100 });
    await Promise.all([commit.place(order()), commit.place(order())]);
    await commit.place(order());
    expect(db.groups.map((group) => group.length)).toEqual([2, 1]);
  });

  it('answers an order only after its group was written', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const commit = new OrderGroupCommit(
      async (orders) => {
        await gate;
        return orders.map((o) => ({ kind: 'placed' as const, orderId: o.orderId }));
      },
      { windowMs: 0, maxOrders: 100 },
    );
    let answered = false;
    const placed = commit.place(order()).then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    release();
    await placed;
    expect(answered).toBe(true);
  });

  it('writes a failed group again one order at a time: only the bad order fails', async () => {
    const bad = order();
    const db = fakeDatabase((orders) =>
      orders.includes(bad) ? new Error('value too long for type character varying(64)') : undefined,
    );
    const commit = new OrderGroupCommit(db.write, { windowMs: 5, maxOrders: 100 });
    const [good1, good2] = [order(), order()];
    const answers = await Promise.allSettled([commit.place(good1), commit.place(bad), commit.place(good2)]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.groups).toEqual([
      [good1.orderId, bad.orderId, good2.orderId],
      [good1.orderId],
      [bad.orderId],
      [good2.orderId],
    ]);
  });

  it('does not write the orders one by one when the database is unavailable: all get its error', async () => {
    const unavailable = new RetriableError('no database connection free within 10000 ms', { code: '08001' });
    const db = fakeDatabase(() => unavailable);
    const commit = new OrderGroupCommit(db.write, { windowMs: 5, maxOrders: 100 });
    const answers = await Promise.allSettled([commit.place(order()), commit.place(order())]);
    expect(answers).toEqual([
      { status: 'rejected', reason: unavailable },
      { status: 'rejected', reason: unavailable },
    ]);
    expect(db.groups).toHaveLength(1);
  });

  it('never puts two requests with the same Idempotency-Key in one group: the second replays the first', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { windowMs: 5, maxOrders: 100 });
    const first = order('k-1');
    const same = order('k-1');
    const other = order('k-2');
    const results = await Promise.all([commit.place(first), commit.place(same), commit.place(other)]);
    expect(db.groups).toEqual([[first.orderId, other.orderId], [same.orderId]]);
    expect(results).toEqual([
      { kind: 'placed', orderId: first.orderId },
      { kind: 'replayed', orderId: first.orderId, status: 'PENDING' },
      { kind: 'placed', orderId: other.orderId },
    ]);
  });

  it('serialises ten requests with one key: one order, nine answers from it, a different body a conflict', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { windowMs: 1, maxOrders: 100 });
    const orders = Array.from({ length: 10 }, () => order('k-race'));
    const differentBody = order('k-race', 'h2');
    const results = await Promise.all([...orders, differentBody].map((o) => commit.place(o)));
    expect(db.groups.every((group) => group.length === 1)).toBe(true);
    expect(results.filter((r) => r.kind === 'placed')).toEqual([
      { kind: 'placed', orderId: orders[0]!.orderId },
    ]);
    expect(results.filter((r) => r.kind === 'replayed')).toHaveLength(9);
    expect(results.at(-1)).toEqual({ kind: 'conflict', orderId: orders[0]!.orderId });
  });

  it('lets the next request with a key in when the first one failed: it is placed', async () => {
    const first = order('k-retry');
    const db = fakeDatabase((orders) => (orders.includes(first) ? new Error('boom') : undefined));
    const commit = new OrderGroupCommit(db.write, { windowMs: 5, maxOrders: 100 });
    const second = order('k-retry');
    const [a, b] = await Promise.allSettled([commit.place(first), commit.place(second)]);
    expect(a.status).toBe('rejected');
    expect(b).toEqual({ status: 'fulfilled', value: { kind: 'placed', orderId: second.orderId } });
  });
});
