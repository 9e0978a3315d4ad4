import { describe, expect, it } from 'vitest';
import { decidePayment } from './authorize-payment.policy';
import { toCents } from '@pipeline/contracts';

describe('decidePayment', () => {
  const customerId = 'customer-1';

  it.each(['0.01', '9999.99', '10000', '10000.0', '10000.00'])(
    'authorizes a total of %s (up to the limit)',
    (total) => {
      expect(decidePayment({ total, customerId })).toEqual({ status: 'AUTHORIZED' });
    },
  );

  it.each(['10000.01', '10000.1', '10001', '99999999.99'])(
    'declines a total of %s as amount_over_limit',
    (total) => {
      expect(decidePayment({ total, customerId })).toEqual({
        status: 'DECLINED',
        reason: 'amount_over_limit',
      });
    },
  );

  it('declines a customer whose id starts with blocked- as customer_blocked', () => {
    expect(decidePayment({ total: '10.00', customerId: 'blocked-42' })).toEqual({
      status: 'DECLINED',
      reason: 'customer_blocked',
    });
  });

  it('only blocks the prefix, case-sensitively', () => {
    for (const id of ['not-blocked-42', 'Blocked-42', 'blocked42', 'blocked']) {
      expect(decidePayment({ total: '10.00', customerId: id })).toEqual({ status: 'AUTHORIZED' });
    }
  });

  it('names the amount when both rules apply', () => {
    expect(decidePayment({ total: '20000.00', customerId: 'blocked-42' })).toEqual({
      status: 'DECLINED',
      reason: 'amount_over_limit',
    });
  });
});

describe('toCents', () => {
  it('is exact where binary floating point is not', () => {
    expect(toCents('0.1') + toCents('0.2')).toBe(toCents('0.3'));
    expect(toCents('10000.01')).toBe(1_000_001n);
    expect(toCents('7')).toBe(700n);
    expect(toCents('123456789012.34')).toBe(12_345_678_901_234n);
  });

  it.each(['', '-1.00', '1.234', '1,00', 'abc', '1e3'])('rejects %j', (amount) => {
    expect(() => toCents(amount)).toThrow(RangeError);
  });
});
