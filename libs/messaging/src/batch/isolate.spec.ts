import { describe, expect, it } from 'vitest';
import type { ConsumedEvent } from '../handlers/event-batch';
import { settle, type IsolationPolicy } from './isolate';

const event = (partition: number, offset: number, attempt = 1): ConsumedEvent => ({
  payload: null,
  metadata: { id: `${partition}@${offset}`, type: 't', source: 's', time: '', correlationId: '' },
  position: { topic: 't', partition, offset: String(offset), key: `k${offset}` },
  attempt,
});

class Fatal extends Error {}
class Transient extends Error {}
const policy: IsolationPolicy = {
  attempts: 3,
  classify: (error) => (error instanceof Fatal ? 'fatal' : 'retriable'),
  isTransient: (error) => error instanceof Transient,
};

/** A database that fails a transaction holding any of the given events, and records what committed. */
function fakeRun(failing: Map<string, () => Error>) {
  const transactions: string[][] = [];
  const committed: string[] = [];
  const run = (events: readonly ConsumedEvent[]): Promise<void> => {
    const ids = events.map((e) => e.metadata.id);
    transactions.push(ids);
    const bad = ids.find((id) => failing.has(id));
    if (bad !== undefined) return Promise.reject(failing.get(bad)!());
    committed.push(...ids);
    return Promise.resolve();
  };
  return { run, transactions, committed };
}

const ids = (list: readonly { metadata: { id: string } }[]) => list.map((e) => e.metadata.id);

describe('settle', () => {
  it('commits a healthy batch in one transaction', async () => {
    const db = fakeRun(new Map());
    const events = [event(0, 1), event(1, 1), event(0, 2)];
    const result = await settle(events, db.run, policy);
    expect(db.transactions).toHaveLength(1);
    expect(ids(result.done)).toEqual(['0@1', '1@1', '0@2']);
    expect(result.deadLetters).toEqual([]);
    expect(result.blocked.size).toBe(0);
  });

  it('dead-letters a fatal event and commits every other event, in few transactions', async () => {
    const events = Array.from({ length: 64 }, (_, i) => event(i % 4, Math.floor(i / 4)));
    const db = fakeRun(new Map([['2@9', () => new Fatal('bad')]]));
    const result = await settle(events, db.run, policy);
    expect(ids(result.deadLetters.map((f) => f.event))).toEqual(['2@9']);
    expect(result.deadLetters[0]).toMatchObject({ errorClass: 'fatal', attempts: 1 });
    expect(result.done).toHaveLength(63);
    expect(new Set(db.committed).size).toBe(63);
    expect(db.transactions.length).toBeLessThanOrEqual(1 + 2 * Math.log2(64));
  });

  it('blocks only the partition of a retriable failure, from that event on', async () => {
    const events = [event(0, 1), event(1, 1), event(0, 2), event(1, 2), event(0, 3), event(1, 3)];
    const db = fakeRun(new Map([['0@2', () => new Error('flaky')]]));
    const result = await settle(events, db.run, policy);
    expect(ids(result.done).sort()).toEqual(['0@1', '1@1', '1@2', '1@3']);
    const blocked = result.blocked.get('t/0');
    expect(blocked?.event.metadata.id).toBe('0@2');
    expect(blocked).toMatchObject({ errorClass: 'retriable', attempts: 1 });
    // 0@3 comes after the blocked event: it never ran, so per-partition order holds.
    expect(db.committed).not.toContain('0@3');
  });

  it('dead-letters a retriable failure on its last attempt and lets its partition go on', async () => {
    const events = [event(0, 1), event(0, 2, 3), event(0, 3)];
    const db = fakeRun(new Map([['0@2', () => new Error('still failing')]]));
    const result = await settle(events, db.run, policy);
    expect(result.deadLetters.map((f) => [f.event.metadata.id, f.attempts])).toEqual([['0@2', 3]]);
    expect(ids(result.done)).toEqual(['0@1', '0@3']);
    expect(result.blocked.size).toBe(0);
  });

  it('keeps waiting, attempts spent, while the policy waits out an outage; dead-letters after', async () => {
    const events = [event(0, 1, 5), event(0, 2)];
    const db = fakeRun(new Map([['0@1', () => new Error('smtp refused')]]));
    let waiting = true;
    const outage: IsolationPolicy = { ...policy, waitsOut: () => waiting };
    const during = await settle(events, db.run, outage);
    expect(during.deadLetters).toEqual([]);
    expect(during.blocked.get('t/0')).toMatchObject({ attempts: 5 });
    waiting = false;
    const after = await settle(events, db.run, outage);
    expect(after.deadLetters.map((f) => f.event.metadata.id)).toEqual(['0@1']);
    expect(ids(after.done)).toEqual(['0@2']);
  });

  it('never waits out a fatal failure', async () => {
    const db = fakeRun(new Map([['0@1', () => new Fatal('bad')]]));
    const result = await settle([event(0, 1)], db.run, { ...policy, waitsOut: () => true });
    expect(result.deadLetters.map((f) => f.event.metadata.id)).toEqual(['0@1']);
  });

  it('commits events before the failing one in their partition before it, and in offset order', async () => {
    const events = [event(0, 1), event(0, 2), event(0, 3), event(0, 4), event(0, 5)];
    const db = fakeRun(new Map([['0@4', () => new Fatal('bad')]]));
    const result = await settle(events, db.run, policy);
    expect(db.committed).toEqual(['0@1', '0@2', '0@3', '0@5']);
    expect(ids(result.done)).toEqual(['0@1', '0@2', '0@3', '0@5']);
  });

  it('isolates nothing for a failure that is no event’s fault', async () => {
    const events = [event(0, 1), event(1, 1)];
    const db = fakeRun(new Map([['0@1', () => new Transient('database down')]]));
    const result = await settle(events, db.run, policy);
    expect(db.transactions).toHaveLength(1);
    expect(result.transient).toBeInstanceOf(Transient);
    expect(result.done).toEqual([]);
    expect(result.deadLetters).toEqual([]);
  });

  it('blocks without using up an attempt when a transient failure hits an isolated event', async () => {
    let calls = 0;
    const failing = new Map([['0@1', () => (++calls === 1 ? new Fatal('bad') : new Transient('deadlock'))]]);
    const db = fakeRun(failing);
    const result = await settle([event(0, 1), event(1, 1)], db.run, policy);
    expect(result.blocked.get('t/0')).toMatchObject({ attempts: 0 });
    expect(result.deadLetters).toEqual([]);
    expect(ids(result.done)).toEqual(['1@1']);
  });
});

describe('settle with errors that name their event', () => {
  it('fails the named event at once and runs the rest together: one extra transaction', async () => {
    const events = [event(0, 1), event(0, 2), event(0, 3), event(1, 1)];
    const culprits = new WeakMap<object, ConsumedEvent>();
    const run = (list: readonly ConsumedEvent[]): Promise<void> => {
      transactions.push(list.map((e) => e.metadata.id));
      const bad = list.find((e) => e.metadata.id === '0@2');
      if (bad === undefined) return Promise.resolve();
      const error = new Fatal('bad');
      culprits.set(error, bad);
      return Promise.reject(error);
    };
    const transactions: string[][] = [];
    const result = await settle(events, run, {
      ...policy,
      culpritOf: (error) => (error instanceof Error ? culprits.get(error) : undefined),
    });
    expect(transactions).toEqual([
      ['0@1', '0@2', '0@3', '1@1'],
      ['0@1', '0@3', '1@1'],
    ]);
    expect(ids(result.deadLetters.map((f) => f.event))).toEqual(['0@2']);
    expect(ids(result.done)).toEqual(['0@1', '0@3', '1@1']);
  });

  it('does not dead-letter a named fatal event yet when an earlier event of its partition then blocks', async () => {
    const events = [event(0, 1), event(0, 2)];
    const culprits = new WeakMap<object, ConsumedEvent>();
    const run = (list: readonly ConsumedEvent[]): Promise<void> => {
      const fatal = list.find((e) => e.metadata.id === '0@2');
      if (fatal === undefined) return Promise.reject(new Error('flaky'));
      const error = new Fatal('bad');
      culprits.set(error, fatal);
      return Promise.reject(error);
    };
    const result = await settle(events, run, {
      ...policy,
      culpritOf: (error) => (error instanceof Error ? culprits.get(error) : undefined),
    });
    // Its offset cannot move past the blocked 0@1: it is fetched again after it, dead-lettered then.
    expect(result.deadLetters).toEqual([]);
    expect(result.blocked.get('t/0')?.event.metadata.id).toBe('0@1');
    expect(result.done).toEqual([]);
  });

  it('keeps the events before a named retriable failure in its partition, and holds the ones after', async () => {
    const events = [event(0, 1), event(0, 2), event(0, 3), event(1, 1)];
    const culprits = new WeakMap<object, ConsumedEvent>();
    const run = (list: readonly ConsumedEvent[]): Promise<void> => {
      const bad = list.find((e) => e.metadata.id === '0@2');
      if (bad === undefined) return Promise.resolve();
      const error = new Error('flaky');
      culprits.set(error, bad);
      return Promise.reject(error);
    };
    const result = await settle(events, run, {
      ...policy,
      culpritOf: (error) => (error instanceof Error ? culprits.get(error) : undefined),
    });
    expect(ids(result.done)).toEqual(['0@1', '1@1']);
    expect(result.blocked.get('t/0')?.event.metadata.id).toBe('0@2');
  });
});
