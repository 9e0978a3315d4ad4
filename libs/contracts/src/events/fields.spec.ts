import { describe, expect, it } from 'vitest';
import {
  CurrencySchema,
  CustomerIdSchema,
  MoneySchema,
  OrderItemSchema,
  PositiveMoneySchema,
  QuantitySchema,
  TimestampSchema,
} from './fields';

describe('MoneySchema', () => {
  it.each(['0', '0.5', '0.50', '12', '12.5', '12.50', '10000.00', '123456789012.34'])(
    'accepts "%s"',
    (value) => expect(MoneySchema.safeParse(value).success).toBe(true),
  );

  it.each(['', '012', '1.', '.5', '1.234', '-1', '+1', '1e3', ' 1', '1,50', 'NaN'])('rejects "%s"', (value) =>
    expect(MoneySchema.safeParse(value).success).toBe(false),
  );

  it('rejects a JSON number: money is never binary floating point', () => {
    const result = MoneySchema.safeParse(12.5);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
  });
});

describe('PositiveMoneySchema', () => {
  it.each(['0.01', '0.09', '0.1', '0.10', '0.99', '1', '1.5', '10.00'])('accepts "%s"', (value) =>
    expect(PositiveMoneySchema.safeParse(value).success).toBe(true),
  );

  it.each(['0', '0.0', '0.00', '00.1', '1.001', '-0.01'])('rejects "%s"', (value) =>
    expect(PositiveMoneySchema.safeParse(value).success).toBe(false),
  );
});

describe('field schemas', () => {
  it('takes quantities as integers from 1 to 1000', () => {
    expect(QuantitySchema.safeParse(1).success).toBe(true);
    expect(QuantitySchema.safeParse(1000).success).toBe(true);
    for (const value of [0, 1001, 1.5, '1']) expect(QuantitySchema.safeParse(value).success).toBe(false);
  });

  it('takes currency as a 3-letter upper-case code', () => {
    expect(CurrencySchema.safeParse('EUR').success).toBe(true);
    for (const value of ['eur', 'EURO', 'EU', ''])
      expect(CurrencySchema.safeParse(value).success).toBe(false);
  });

  it('takes customer ids of 1 to 64 characters', () => {
    expect(CustomerIdSchema.safeParse('c'.repeat(64)).success).toBe(true);
    expect(CustomerIdSchema.safeParse('').success).toBe(false);
    expect(CustomerIdSchema.safeParse('c'.repeat(65)).success).toBe(false);
  });

  it('takes timestamps as ISO-8601 UTC, as Date#toISOString writes them', () => {
    expect(TimestampSchema.safeParse(new Date().toISOString()).success).toBe(true);
    expect(TimestampSchema.safeParse('2025-01-31T12:00:00Z').success).toBe(true);
    for (const value of ['2025-01-31', '31/01/2025 12:00', 1738324800000])
      expect(TimestampSchema.safeParse(value).success).toBe(false);
  });

  it('rejects an item with an unknown field', () => {
    expect(
      OrderItemSchema.safeParse({ sku: 'A', quantity: 1, unitPrice: '1.00', discount: '0.10' }).success,
    ).toBe(false);
  });
});
