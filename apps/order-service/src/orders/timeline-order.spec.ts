import { describe, expect, it } from 'vitest';
import { inCausalOrder, type CausalEntry } from './timeline-order';

interface Entry extends CausalEntry {
  readonly name: string;
}

const entry = (name: string, ms: number, causedBy: string | null = null): Entry => ({
  name,
  at: new Date(Date.UTC(2026, 11, 1, 10, 0, 0, ms)),
  eventId: name,
  causationId: causedBy,
});
const names = (entries: readonly Entry[]) => inCausalOrder(entries).map((e) => e.name);

describe('inCausalOrder', () => {
  it('keeps entries of different times as sorted', () => {
    expect(
      names([entry('placed', 1), entry('reserved', 3, 'authorized'), entry('authorized', 5, 'placed')]),
    ).toEqual(['placed', 'reserved', 'authorized']);
  });

  it('puts a cause before its effect when both have the same time, whatever the id order', () => {
    const placed = entry('placed', 1);
    const reserved = entry('reserved', 7, 'authorized');
    const authorized = entry('authorized', 7, 'placed');
    const confirmed = entry('confirmed', 7, 'reserved');
    expect(names([placed, confirmed, reserved, authorized])).toEqual([
      'placed',
      'authorized',
      'reserved',
      'confirmed',
    ]);
  });

  it('keeps id order among entries of one time that do not cause each other', () => {
    expect(names([entry('a', 2, 'x'), entry('b', 2, 'y'), entry('c', 2)])).toEqual(['a', 'b', 'c']);
  });

  it('terminates on a causation cycle, keeping id order', () => {
    expect(names([entry('a', 2, 'b'), entry('b', 2, 'a')])).toEqual(['a', 'b']);
  });

  it('ignores entries without an event id', () => {
    const anonymous: Entry = { name: 'old', at: entry('x', 4).at, eventId: null, causationId: null };
    expect(names([anonymous, entry('b', 4)])).toEqual(['old', 'b']);
  });
});
