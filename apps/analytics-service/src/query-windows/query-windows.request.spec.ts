import { describe, expect, it } from 'vitest';
import { WindowsQuerySchema } from './query-windows.request';

const fields = (input: Record<string, string>) =>
  WindowsQuerySchema.safeParse(input).error?.issues.map((issue) => issue.path.join('.')) ?? [];

describe('WindowsQuerySchema', () => {
  it('accepts no bounds, or ISO-8601 bounds with any offset', () => {
    expect(WindowsQuerySchema.parse({})).toEqual({});
    const { from, to } = WindowsQuerySchema.parse({
      from: '2026-01-31T13:00:00+01:00',
      to: '2026-01-31T12:05:00Z',
    });
    expect(from?.toISOString()).toBe('2026-01-31T12:00:00.000Z');
    expect(to?.toISOString()).toBe('2026-01-31T12:05:00.000Z');
  });

  it('names each malformed bound, and only that one', () => {
    expect(fields({ from: 'yesterday', to: '2026-01-31T12:05:00Z' })).toEqual(['from']);
    expect(fields({ to: '2026-01-31' })).toEqual(['to']);
  });

  it('refuses an empty range, naming to', () => {
    expect(fields({ from: '2026-01-31T12:05:00Z', to: '2026-01-31T12:00:00Z' })).toEqual(['to']);
  });
});
