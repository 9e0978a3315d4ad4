import { describe, expect, it } from 'vitest';
import { formatMoney, lineTotal, toCents } from './money';

describe('money', () => {
  it('multiplies exactly where binary floats would not', () => {
    expect(0.1 * 3).not.toBe(0.3);
    expect(lineTotal(3, '0.1')).toBe('0.30');
    expect(lineTotal(1000, '19.99')).toBe('19990.00');
    expect(lineTotal(7, '1234567890123.45')).toBe('8641975230864.15');
  });

  it('formats every amount with two places', () => {
    expect(formatMoney('28')).toBe('28.00');
    expect(formatMoney('0.5')).toBe('0.50');
    expect(formatMoney('10.05')).toBe('10.05');
  });

  it('refuses what is not a money amount', () => {
    expect(() => toCents('1.234')).toThrow(RangeError);
    expect(() => toCents('-1')).toThrow(RangeError);
  });
});
