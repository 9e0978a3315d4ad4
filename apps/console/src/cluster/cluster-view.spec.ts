import { describe, expect, it } from 'vitest';
import { GroupNotEmptyError, lagOf } from './cluster-view';

describe('lagOf', () => {
  it('is the distance from the committed offset to the end of the log', () => {
    expect(lagOf('40', '42')).toBe(2);
    expect(lagOf('42', '42')).toBe(0);
  });

  it('counts the whole log when the group has committed nothing, as Kafka’s tools do', () => {
    expect(lagOf('-1', '7')).toBe(7);
  });

  it('is never negative (a committed offset past a truncated log)', () => {
    expect(lagOf('50', '42')).toBe(0);
  });
});

describe('GroupNotEmptyError', () => {
  it('says why Kafka refuses and what to do', () => {
    expect(new GroupNotEmptyError('analytics-service', 1).message).toMatch(
      /1 active member: .*empty group only.*Stop its consumers/,
    );
  });
});
