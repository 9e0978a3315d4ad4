import { randomUUID } from 'node:crypto';
import { context, trace, type SpanContext } from '@opentelemetry/api';
import { orderTotal, type OrderPlacedPayload } from '@pipeline/contracts';
import { traceHeaders } from '@pipeline/observability';
import type { OrderStatus } from '../generated/prisma/enums';
import type { PlaceOrderRequest } from './place-order.request';
import { requestHash } from './request-hash';

/** A validated order waiting for its group's transaction, with everything it will write. */
export interface PendingOrder {
  readonly orderId: string;
  /** The ce_id of its order.placed event, also on its first timeline entry. */
  readonly eventId: string;
  readonly placedAt: Date;
  readonly payload: OrderPlacedPayload;
  readonly idempotency?: { readonly key: string; readonly requestHash: string };
  /** The HTTP request's trace context, carried onto its order.placed record. */
  readonly trace: { readonly traceparent?: string; readonly tracestate?: string };
  readonly spanContext?: SpanContext;
}

export type EarlierRequest =
  | { readonly kind: 'replayed'; readonly orderId: string; readonly status: OrderStatus }
  | { readonly kind: 'conflict'; readonly orderId: string };

export type PlaceOrderResult = { readonly kind: 'placed'; readonly orderId: string } | EarlierRequest;

/**
 * The order.placed payload, built from the request the edge validated, not parsed a second time.
 * It satisfies the contract by construction: PlaceOrderRequestSchema validates each field with
 * the contract's own field schema (customer id and email, SKU, quantity, 1 to 100 items,
 * currency), unit prices are normalised to the contract's 2-place form and the total is exact
 * cents; `pending-order.spec.ts` pins both the shared schemas and the result against
 * OrderPlacedPayloadSchema.
 */
export function orderPlacedPayload(
  orderId: string,
  request: PlaceOrderRequest,
  placedAt: Date,
): OrderPlacedPayload {
  const { customerId, customerEmail, items, currency } = request;
  return {
    orderId,
    customerId,
    customerEmail,
    items,
    total: orderTotal(items),
    currency,
    placedAt: placedAt.toISOString(),
  };
}

/** Called in the request's own context: its trace context goes with the order. */
export function pendingOrder(request: PlaceOrderRequest, idempotencyKey?: string): PendingOrder {
  const orderId = randomUUID();
  const placedAt = new Date();
  const spanContext = trace.getSpanContext(context.active());
  return {
    orderId,
    eventId: randomUUID(),
    placedAt,
    payload: orderPlacedPayload(orderId, request, placedAt),
    ...(idempotencyKey === undefined
      ? {}
      : { idempotency: { key: idempotencyKey, requestHash: requestHash(request) } }),
    trace: traceHeaders(),
    ...(spanContext === undefined ? {} : { spanContext }),
  };
}
