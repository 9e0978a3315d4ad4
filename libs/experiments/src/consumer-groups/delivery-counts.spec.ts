import { describe, expect, it } from 'vitest';
import {
  countDeliveries,
  countsEvidence,
  exactlyOnce,
  stageEvidence,
  type Delivery,
} from './delivery-counts';

const delivery = (key: string, member = 'member-1', stage = 's1'): Delivery => ({
  key,
  partition: 0,
  member,
  stage,
});

describe('delivery counts', () => {
  it('every published key consumed once is exactly once', () => {
    const counts = countDeliveries(['a', 'b'], [delivery('b'), delivery('a')]);
    expect(counts).toEqual({
      published: 2,
      consumed: 2,
      distinct: 2,
      duplicates: [],
      missing: [],
      unexpected: [],
    });
    expect(exactlyOnce(counts)).toBe(true);
  });

  it('a redelivery, a lost record or a stranger fails the criterion and is named', () => {
    const counts = countDeliveries(
      ['a', 'b', 'c'],
      [delivery('a'), delivery('a'), delivery('b'), delivery('z')],
    );
    expect(counts).toMatchObject({
      consumed: 4,
      distinct: 3,
      duplicates: ['a'],
      missing: ['c'],
      unexpected: ['z'],
    });
    expect(exactlyOnce(counts)).toBe(false);
    expect(exactlyOnce(countDeliveries(['a'], [delivery('a'), delivery('a')]))).toBe(false);
    expect(countsEvidence(counts)).toMatchObject({
      entries: expect.arrayContaining([
        ['duplicates', '1: a'],
        ['missing', '1: c'],
      ]) as unknown,
    });
  });

  it('counts per member and stage, with totals', () => {
    const evidence = stageEvidence(
      ['s1', 's2'],
      ['member-2', 'member-3'],
      [delivery('a', 'member-2', 's1'), delivery('b', 'member-10', 's2'), delivery('c', 'member-2', 's2')],
    );
    expect(evidence).toEqual({
      kind: 'table',
      caption: 'Records consumed per member and stage',
      columns: ['Member', 's1', 's2', 'Total'],
      rows: [
        ['member-2', '1', '1', '2'],
        ['member-3', '0', '0', '0'],
        ['member-10', '0', '1', '1'],
        ['all members', '1', '2', '3'],
      ],
    });
  });
});
