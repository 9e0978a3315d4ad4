import { randomUUID } from 'node:crypto';
import {
  OrderPlacedEvent,
  OrderPlacedPayloadSchema,
  type OrderPlacedPayload,
  encodeHeaders,
  metadataOf,
} from '@pipeline/contracts';
import type { Message } from 'kafkajs';

export interface OrderPlacedRecord {
  readonly orderId: string;
  readonly payload: OrderPlacedPayload;
  /** Key, value and headers exactly as order-service's outbox relay publishes them. */
  readonly message: Message;
}

/** An `order.placed` event in the pipeline's own envelope (CloudEvents headers, JSON value), at event time `at`. */
export function orderPlacedRecord(
  topic: string,
  customerId: string,
  at: Date,
  sku = 'MUG-BLUE',
): OrderPlacedRecord {
  const orderId = randomUUID();
  const payload = OrderPlacedPayloadSchema.parse({
    orderId,
    customerId,
    customerEmail: 'experiments@example.test',
    items: [{ sku, quantity: 1, unitPrice: '12.50' }],
    total: '12.50',
    currency: 'EUR',
    placedAt: at.toISOString(),
  });
  const metadata = metadataOf(
    { topic, key: orderId, type: OrderPlacedEvent.type, payload, correlationId: orderId, time: at },
    'experiments',
  );
  return {
    orderId,
    payload,
    message: { key: orderId, value: JSON.stringify(payload), headers: encodeHeaders(metadata) },
  };
}
