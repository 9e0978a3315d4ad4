import { describe, expect, it } from 'vitest';
import { isLate, windowOf, WINDOW_MS } from './tumbling-window';

const at = (iso: string): Date => new Date(iso);

describe('windowOf', () => {
  it('puts an event time into the 5-minute window that contains it', () => {
    const window = windowOf(at('2026-01-31T12:07:42.123Z'));
    expect(window.start.toISOString()).toBe('2026-01-31T12:05:00.000Z');
    expect(window.end.toISOString()).toBe('2026-01-31T12:10:00.000Z');
  });

  it('is inclusive at the start and exclusive at the end', () => {
    expect(windowOf(at('2026-01-31T12:05:00.000Z')).start.toISOString()).toBe('2026-01-31T12:05:00.000Z');
    expect(windowOf(at('2026-01-31T12:09:59.999Z')).start.toISOString()).toBe('2026-01-31T12:05:00.000Z');
    expect(windowOf(at('2026-01-31T12:10:00.000Z')).start.toISOString()).toBe('2026-01-31T12:10:00.000Z');
  });

  it('floors times before the epoch too', () => {
    expect(windowOf(new Date(-1)).start.getTime()).toBe(-WINDOW_MS);
  });

  it('refuses an invalid date', () => {
    expect(() => windowOf(new Date('nope'))).toThrow(RangeError);
  });
});

describe('isLate', () => {
  const window = windowOf(at('2026-01-31T12:07:00.000Z')); // 12:05 to 12:10
  const grace = 60_000;

  it('is never late before anything was seen', () => {
    expect(isLate(window, grace, undefined)).toBe(false);
  });

  it('accepts events while the watermark is inside the window or its grace period', () => {
    expect(isLate(window, grace, at('2026-01-31T12:08:00.000Z'))).toBe(false);
    expect(isLate(window, grace, at('2026-01-31T12:10:30.000Z'))).toBe(false);
    expect(isLate(window, grace, at('2026-01-31T12:11:00.000Z'))).toBe(false);
  });

  it('is late once the watermark passed window end + grace', () => {
    expect(isLate(window, grace, at('2026-01-31T12:11:00.001Z'))).toBe(true);
    expect(isLate(window, grace, at('2026-01-31T13:00:00.000Z'))).toBe(true);
  });

  it('with no grace, closes the window at its end', () => {
    expect(isLate(window, 0, at('2026-01-31T12:10:00.000Z'))).toBe(false);
    expect(isLate(window, 0, at('2026-01-31T12:10:00.001Z'))).toBe(true);
  });
});
