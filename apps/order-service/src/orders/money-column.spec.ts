import { describe, expect, it } from 'vitest';
import { fitsMoneyColumn } from './money-column';

describe('money column', () => {
  it('knows what fits a NUMERIC(12,2) column', () => {
    expect(fitsMoneyColumn('9999999999.99')).toBe(true);
    expect(fitsMoneyColumn('10000000000.00')).toBe(false);
  });
});
