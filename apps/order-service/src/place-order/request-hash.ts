import { createHash } from 'node:crypto';
import type { PlaceOrderRequest } from './place-order.request';

/**
 * sha256 of the normalised request with a fixed field order: the same order sent as
 * `{"unitPrice": 12.5}` or `{"unitPrice": "12.50"}`, fields in any order, hashes the same.
 */
export function requestHash(request: PlaceOrderRequest): string {
  const canonical = [
    request.customerId,
    request.customerEmail,
    request.currency,
    request.items.map((item) => [item.sku, item.quantity, item.unitPrice]),
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
