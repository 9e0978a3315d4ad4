import { describe, expect, it } from 'vitest';
import { isSampled } from './log-context';

describe('isSampled', () => {
  const id = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7';
  it('reads the sampled flag of a traceparent', () => {
    expect(isSampled(`${id}-01`)).toBe(true);
    expect(isSampled(`${id}-03`)).toBe(true);
    expect(isSampled(`${id}-00`)).toBe(false);
    expect(isSampled(`${id}-02`)).toBe(false);
  });
  it('treats a missing or malformed traceparent as not sampled', () => {
    expect(isSampled(undefined)).toBe(false);
    expect(isSampled('garbage')).toBe(false);
  });
});
