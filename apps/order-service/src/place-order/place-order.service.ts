import { Inject, Injectable } from '@nestjs/common';
import { OrderGroupCommit } from './order-group-commit';
import { pendingOrder, type PlaceOrderResult } from './pending-order';
import type { PlaceOrderRequest } from './place-order.request';

export const ORDER_GROUP_COMMIT = Symbol('ORDER_GROUP_COMMIT');

@Injectable()
export class PlaceOrderService {
  constructor(@Inject(ORDER_GROUP_COMMIT) private readonly groups: OrderGroupCommit) {}

  /** The idempotency key, the order and its order.placed event commit together, in a group. */
  place(request: PlaceOrderRequest, idempotencyKey?: string): Promise<PlaceOrderResult> {
    return this.groups.place(pendingOrder(request, idempotencyKey));
  }
}
