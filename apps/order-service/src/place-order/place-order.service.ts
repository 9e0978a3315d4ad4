import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DATABASE } from '@pipeline/service-kit';
import type { OrderDatabase } from '../orders/order-database';
import { createOrder } from './create-order';
import { claimIdempotencyKey, type EarlierRequest } from './idempotency-key';
import type { PlaceOrderRequest } from './place-order.request';
import { requestHash } from './request-hash';

export type PlaceOrderResult = { readonly kind: 'placed'; readonly orderId: string } | EarlierRequest;

@Injectable()
export class PlaceOrderService {
  constructor(@Inject(DATABASE) private readonly db: OrderDatabase) {}

  /** One transaction: the idempotency key, the order and its order.placed event commit together. */
  place(request: PlaceOrderRequest, idempotencyKey?: string): Promise<PlaceOrderResult> {
    const orderId = randomUUID();
    return this.db.$transaction(
      async (tx): Promise<PlaceOrderResult> => {
        if (idempotencyKey !== undefined) {
          const earlier = await claimIdempotencyKey(tx, idempotencyKey, requestHash(request), orderId);
          if (earlier) return earlier;
        }
        await createOrder(tx, orderId, request);
        return { kind: 'placed', orderId };
      },
      // Same-key requests queue behind the first one's transaction: give them time.
      { maxWait: 10_000, timeout: 15_000 },
    );
  }
}
