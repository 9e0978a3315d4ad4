import { describe, expect, it } from 'vitest';
import { formatCents, lineTotal, normaliseAmount, orderTotal, toCents } from './money';

describe('money', () => {
  it('parses decimal strings into integer cents', () => {
    expect(toCents('0')).toBe(0n);
    expect(toCents('12')).toBe(1200n);
    expect(toCents('12.5')).toBe(1250n);
    expect(toCents('12.05')).toBe(1205n);
    expect(toCents('9999999999.99')).toBe(999_999_999_999n);
  });

  it('refuses anything that is not a plain decimal with at most 2 places', () => {
    for (const bad of ['', '1.234', '-1', '1e3', ' 1', '1.', '.5', 'abc']) {
      expect(() => toCents(bad), bad).toThrow(RangeError);
    }
  });

  it('formats cents with exactly 2 places', () => {
    expect(formatCents(0n)).toBe('0.00');
    expect(formatCents(5n)).toBe('0.05');
    expect(formatCents(1250n)).toBe('12.50');
    expect(formatCents(123_456_789_012n)).toBe('1234567890.12');
    expect(() => formatCents(-1n)).toThrow(RangeError);
  });

  it('normalises amounts', () => {
    expect(normaliseAmount('7')).toBe('7.00');
    expect(normaliseAmount('0.1')).toBe('0.10');
    expect(normaliseAmount('10.05')).toBe('10.05');
  });

  it('multiplies and totals exactly where floating point would not', () => {
    expect(0.1 * 3).not.toBe(0.3);
    expect(lineTotal(3, '0.1')).toBe('0.30');
    expect(lineTotal(7, '1234567890123.45')).toBe('8641975230864.15');
    // 0.1 + 0.2 in floating point is 0.30000000000000004.
    expect(
      orderTotal([
        { quantity: 1, unitPrice: '0.1' },
        { quantity: 1, unitPrice: '0.2' },
      ]),
    ).toBe('0.30');
    // 3 × 19.99 in floating point is 59.97000000000001.
    expect(orderTotal([{ quantity: 3, unitPrice: '19.99' }])).toBe('59.97');
    expect(orderTotal(Array.from({ length: 100 }, () => ({ quantity: 1000, unitPrice: '99999.99' })))).toBe(
      '9999999000.00',
    );
  });
});
