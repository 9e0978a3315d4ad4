import { toCents } from '@pipeline/contracts';

/** Orders above this total are declined (inclusive limit: exactly 10,000.00 is authorized). */
export const PAYMENT_LIMIT = '10000.00';

/** Customers whose id starts with this are declined: lets tests and demos choose the outcome. */
export const BLOCKED_CUSTOMER_PREFIX = 'blocked-';

export type PaymentDeclineReason = 'amount_over_limit' | 'customer_blocked';

export type PaymentDecision =
  { readonly status: 'AUTHORIZED' } | { readonly status: 'DECLINED'; readonly reason: PaymentDeclineReason };

export interface PaymentRequest {
  /** Decimal string, e.g. "12.50". */
  readonly total: string;
  readonly customerId: string;
}

/**
 * Deterministic authorization: the same order always gets the same answer, so redelivery,
 * replay and tests can rely on it. The amount rule is checked first.
 */
export function decidePayment(request: PaymentRequest): PaymentDecision {
  if (toCents(request.total) > toCents(PAYMENT_LIMIT))
    return { status: 'DECLINED', reason: 'amount_over_limit' };
  if (request.customerId.startsWith(BLOCKED_CUSTOMER_PREFIX))
    return { status: 'DECLINED', reason: 'customer_blocked' };
  return { status: 'AUTHORIZED' };
}
