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

interface HeldWrite {
  readonly ids: string[];
  /** Commits the write: every order of it placed. */
  finish(): void;
}

/** A database whose writes stay in flight until the test finishes them, one entry per write. */
function heldDatabase() {
  const writes: HeldWrite[] = [];
  const waiters: (() => void)[] = [];
  const write: WriteOrderGroup = (orders) =>
    new Promise((resolve) => {
      const placed = orders.map((o): PlaceOrderResult => ({ kind: 'placed', orderId: o.orderId }));
      writes.push({ ids: orders.map((o) => o.orderId), finish: () => resolve(placed) });
      for (const wake of waiters.splice(0)) wake();
    });
  /** The `n`-th write (from 1), once it has started. */
  const started = async (n: number): Promise<HeldWrite> => {
    while (writes.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return writes[n - 1]!;
  };
  return { write, writes, started };
}

/** Resolves after everything this event-loop turn scheduled with setImmediate has run. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const ids = (orders: readonly PendingOrder[]) => orders.map((o) => o.orderId);
const placedAll = (orders: readonly PendingOrder[]) =>
  orders.map((o) => ({ kind: 'placed', orderId: o.orderId }));

describe('OrderGroupCommit', () => {
  it('writes concurrent orders in one group and answers each with its own result', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
    const orders = [order(), order(), order()];
    const results = await Promise.all(orders.map((o) => commit.place(o)));
    expect(db.groups).toEqual([orders.map((o) => o.orderId)]);
    expect(results).toEqual(orders.map((o) => ({ kind: 'placed', orderId: o.orderId })));
  });

  it('writes an order that finds nothing in flight at once, with what arrives in the same turn', async () => {
    const db = heldDatabase();
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
    const [a, b, c] = [order(), order(), order()];
    const answers = [commit.place(a), commit.place(b)];
    // No timer: the group is written at the end of this turn; c, a turn later, is not in it.
    await nextTurn();
    answers.push(commit.place(c));
    expect(db.writes.map((w) => w.ids)).toEqual([ids([a, b])]);
    db.writes[0]!.finish();
    (await db.started(2)).finish();
    expect(await Promise.all(answers)).toEqual(placedAll([a, b, c]));
    expect(db.writes.map((w) => w.ids)).toEqual([ids([a, b]), ids([c])]);
  });

  it('keeps one group in flight: what arrives meanwhile is the next group, written as it settles', async () => {
    const db = heldDatabase();
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
    const [a, b, c, d] = [order(), order(), order(), order()];
    const answers = [commit.place(a)];
    const first = await db.started(1);
    answers.push(commit.place(b), commit.place(c));
    await nextTurn();
    answers.push(commit.place(d));
    await nextTurn();
    expect(db.writes).toHaveLength(1);

    // b, c and d, over two turns, form one group, started by the first one's settling, not by a timer.
    first.finish();
    await nextTurn();
    expect(db.writes.map((w) => w.ids)).toEqual([ids([a]), ids([b, c, d])]);
    db.writes[1]!.finish();
    expect(await Promise.all(answers)).toEqual(placedAll([a, b, c, d]));
    expect(db.writes).toHaveLength(2);
  });

  it('bounds a group by maxOrders: a full group waits its turn, and what comes after forms the next', async () => {
    const db = heldDatabase();
    const commit = new OrderGroupCommit(db.write, { maxOrders: 2 });
    const orders = Array.from({ length: 5 }, () => order());
    const answers = orders.map((o) => commit.place(o));
    // Full: written without waiting for the turn's end. The next full one waits: one in flight.
    expect(db.writes.map((w) => w.ids)).toEqual([ids(orders.slice(0, 2))]);
    await nextTurn();
    expect(db.writes).toHaveLength(1);
    db.writes[0]!.finish();
    const second = await db.started(2);
    await nextTurn();
    expect(db.writes).toHaveLength(2);
    second.finish();
    (await db.started(3)).finish();
    expect(await Promise.all(answers)).toEqual(placedAll(orders));
    expect(db.writes.map((w) => w.ids)).toEqual([
      ids(orders.slice(0, 2)),
      ids(orders.slice(2, 4)),
      ids(orders.slice(4)),
    ]);
  });

  it('answers an order only after its group was written', async () => {
    const db = heldDatabase();
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
    let answered = false;
    const placed = commit.place(order()).then(() => (answered = true));
    const write = await db.started(1);
    await nextTurn();
    expect(answered).toBe(false);
    write.finish();
    await placed;
    expect(answered).toBe(true);
  });

  it('writes a failed group again one order at a time: only the bad order fails', async () => {
    const bad = order();
    const db = fakeDatabase((orders) =>
      orders.includes(bad) ? new Error('value too long for type character varying(64)') : undefined,
    );
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
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
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
    const answers = await Promise.allSettled([commit.place(order()), commit.place(order())]);
    expect(answers).toEqual([
      { status: 'rejected', reason: unavailable },
      { status: 'rejected', reason: unavailable },
    ]);
    expect(db.groups).toHaveLength(1);
  });

  it('never puts two requests with the same Idempotency-Key in one group: the second replays the first', async () => {
    const db = fakeDatabase();
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
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
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
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
    const commit = new OrderGroupCommit(db.write, { maxOrders: 100 });
    const second = order('k-retry');
    const [a, b] = await Promise.allSettled([commit.place(first), commit.place(second)]);
    expect(a.status).toBe('rejected');
    expect(b).toEqual({ status: 'fulfilled', value: { kind: 'placed', orderId: second.orderId } });
  });
});
