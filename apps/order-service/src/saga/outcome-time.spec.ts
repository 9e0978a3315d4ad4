import { describe, expect, it } from 'vitest';
import { outcomeTime } from './outcome-time';

describe('outcomeTime', () => {
  const now = new Date('2026-12-01T10:00:00.500Z');

  it('is now when the cause is in the past, or now exactly', () => {
    expect(outcomeTime(now, '2026-12-01T10:00:00.100Z')).toBe(now);
    expect(outcomeTime(now, now.toISOString())).toBe(now);
  });

  it('is the cause’s time when the cause’s clock runs ahead of ours', () => {
    expect(outcomeTime(now, '2026-12-01T10:00:02.250Z').toISOString()).toBe('2026-12-01T10:00:02.250Z');
  });
});
