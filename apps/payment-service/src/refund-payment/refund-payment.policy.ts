import type { PaymentStatus } from '../generated/prisma/client';

export type RefundDecision =
  | { readonly action: 'refund' }
  | { readonly action: 'none' }
  /** The saga is inconsistent: nothing to refund where a refund was asked for. */
  | {
      readonly action: 'fail';
      readonly code: 'PAYMENT_NOT_FOUND' | 'PAYMENT_NOT_AUTHORIZED';
      readonly message: string;
    };

/**
 * What a stock rejection does to the order's payment. Only an authorized payment is refunded;
 * a refunded one stays as it is (the rejection was re-published). A missing or declined payment
 * cannot have led to a stock reservation attempt, so it is a fatal inconsistency, dead-lettered
 * for a person to look at rather than retried.
 */
export function decideRefund(orderId: string, status: PaymentStatus | undefined): RefundDecision {
  switch (status) {
    case 'AUTHORIZED':
      return { action: 'refund' };
    case 'REFUNDED':
      return { action: 'none' };
    case 'DECLINED':
      return {
        action: 'fail',
        code: 'PAYMENT_NOT_AUTHORIZED',
        message: `stock was rejected for order ${orderId} whose payment was declined`,
      };
    case undefined:
      return {
        action: 'fail',
        code: 'PAYMENT_NOT_FOUND',
        message: `no payment for order ${orderId} to refund`,
      };
  }
}
