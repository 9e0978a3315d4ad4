import { describe, expect, it } from 'vitest';
import type { ConsumedEvent } from './event-batch';
import { planHandlerCalls } from './event-handlers';

let offset = 0;
const event = (type: string, key: string | null, partition = 0): ConsumedEvent => ({
  payload: null,
  metadata: { id: `${type}-${offset}`, type, source: 't', time: '', correlationId: key ?? '' },
  position: { topic: 't', partition, offset: String(offset++), key },
  attempt: 1,
});
const plan = (events: ConsumedEvent[], handlerOf = (e: ConsumedEvent) => e.metadata.type) =>
  planHandlerCalls(events, handlerOf).map((call) => ({
    handler: call.handler,
    offsets: call.events.map((e) => e.position.offset),
  }));

describe('planHandlerCalls', () => {
  it('calls each handler once when no key has events for two handlers', () => {
    offset = 0;
    const events = [event('a', 'k1'), event('b', 'k2'), event('a', 'k3'), event('b', 'k4')];
    expect(plan(events)).toEqual([
      { handler: 'a', offsets: ['0', '2'] },
      { handler: 'b', offsets: ['1', '3'] },
    ]);
  });

  it('keeps one handler’s events of one key together and in order', () => {
    offset = 0;
    const events = [event('a', 'k1'), event('a', 'k1'), event('a', 'k2')];
    expect(plan(events)).toEqual([{ handler: 'a', offsets: ['0', '1', '2'] }]);
  });

  it('applies a key’s events for different handlers in offset order, in later waves', () => {
    offset = 0;
    const events = [event('b', 'k1'), event('a', 'k1'), event('a', 'k2'), event('b', 'k1'), event('b', 'k3')];
    const calls = plan(events);
    expect(calls).toEqual([
      { handler: 'b', offsets: ['0', '4'] },
      { handler: 'a', offsets: ['2'] },
      { handler: 'a', offsets: ['1'] },
      { handler: 'b', offsets: ['3'] },
    ]);
    // Per key, the order of application is the offset order.
    const applied = calls.flatMap((call) => call.offsets);
    const k1 = applied.filter((o) => ['0', '1', '3'].includes(o));
    expect(k1).toEqual(['0', '1', '3']);
  });

  it('gives a handler of every type the whole partition in offset order (one wave)', () => {
    offset = 0;
    const events = [event('a', 'k1'), event('b', 'k1'), event('c', 'k2'), event('a', 'k2')];
    expect(plan(events, () => 'all')).toEqual([{ handler: 'all', offsets: ['0', '1', '2', '3'] }]);
  });

  it('orders records without a key by their partition', () => {
    offset = 0;
    const events = [event('a', null, 0), event('b', null, 0), event('b', null, 1)];
    expect(plan(events)).toEqual([
      { handler: 'a', offsets: ['0'] },
      { handler: 'b', offsets: ['2'] },
      { handler: 'b', offsets: ['1'] },
    ]);
  });

  it('plans nothing for no events', () => {
    expect(plan([])).toEqual([]);
  });
});
