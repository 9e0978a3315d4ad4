import { describe, expect, it } from 'vitest';
import { decideRefund } from './refund-payment.policy';

describe('decideRefund', () => {
  const orderId = '7b0e6f1c-3a52-4a8e-9d55-0c2f4f7a9b11';

  it('refunds an authorized payment', () => {
    expect(decideRefund(orderId, 'AUTHORIZED')).toEqual({ action: 'refund' });
  });

  it('leaves a refunded payment alone', () => {
    expect(decideRefund(orderId, 'REFUNDED')).toEqual({ action: 'none' });
  });

  it('fails when there is no payment, naming the order', () => {
    const decision = decideRefund(orderId, undefined);
    expect(decision).toMatchObject({ action: 'fail', code: 'PAYMENT_NOT_FOUND' });
    expect(decision.action === 'fail' && decision.message).toContain(orderId);
  });

  it('fails for a declined payment: there was nothing to reserve stock for', () => {
    expect(decideRefund(orderId, 'DECLINED')).toMatchObject({
      action: 'fail',
      code: 'PAYMENT_NOT_AUTHORIZED',
    });
  });
});
