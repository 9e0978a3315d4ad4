// Valid orders whose order.placed comes from kcat instead of order-service's relay. order-service
// does not read `orders`, so the order must exist there first, as place-order leaves it (order,
// lines, the order.placed timeline entry) minus the outbox row: kcat plays the relay. Then the
// saga runs as for any order: payment, reservation, confirmation, email, analytics.
import { randomUUID } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import {
  OrderPlacedEvent,
  Topics,
  encodeHeaders,
  metadataOf,
  type OrderPlacedPayload,
} from '@pipeline/contracts';
import type { TestDatabase } from '../support/db';
import type { KcatHeader } from './kcat';

export interface KcatOrder {
  readonly eventId: string;
  readonly payload: OrderPlacedPayload;
}

const partitioner = Partitioners.DefaultPartitioner();

/** The partition of `orders` the Java client (and the services' relays) would pick for `key`. */
export function partitionOf(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 1,
    partitionErrorCode: 0,
    replicas: [1],
    isr: [1],
  }));
  return partitioner({ topic: Topics.orders, partitionMetadata, message: { key, value: null } });
}

/** An order.placed payload that payment-service authorizes and inventory-service can reserve. */
export function orderPlacedPayload(orderId: string, customerEmail: string): OrderPlacedPayload {
  return {
    orderId,
    customerId: `kcat-${orderId.slice(0, 8)}`,
    customerEmail,
    items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
    total: '1.25',
    currency: 'EUR',
    placedAt: new Date().toISOString(),
  };
}

/** A confirmable order whose id hashes to `partition`, as the Java client would place its key. */
export function kcatOrder(runId: string, sequence: number, partition: number, partitions: number): KcatOrder {
  let orderId = randomUUID();
  while (partitionOf(orderId, partitions) !== partition) orderId = randomUUID();
  return { eventId: randomUUID(), payload: orderPlacedPayload(orderId, `${runId}-${sequence}@kcat.test`) };
}

/** The order.placed envelope of `order`, as order-service's relay would write it. */
export function orderPlacedHeaders(order: KcatOrder): KcatHeader[] {
  const { orderId, placedAt } = order.payload;
  const metadata = metadataOf(
    {
      topic: Topics.orders,
      key: orderId,
      type: OrderPlacedEvent.type,
      payload: order.payload,
      correlationId: orderId,
      id: order.eventId,
      time: new Date(placedAt),
    },
    'kcat',
  );
  return Object.entries(encodeHeaders(metadata));
}

/**
 * JSON, padded with whitespace (still valid JSON): librdkafka sends a batch uncompressed when the
 * codec would not shrink it, and a small record would not be compressed at all.
 */
export const padded = (json: string): string => json + ' '.repeat(4096);

export const orderPlacedValue = (order: KcatOrder): string => padded(JSON.stringify(order.payload));

/** `headers` with `name` given `value` instead (or dropped, with undefined). */
export function replaceHeader(
  headers: readonly KcatHeader[],
  name: string,
  value?: KcatHeader[1],
): KcatHeader[] {
  const others = headers.filter(([candidate]) => candidate !== name);
  return value === undefined ? others : [...others, [name, value]];
}

/** Writes the orders into order-service's database as place-order does, without outbox rows. */
export async function insertOrders(database: TestDatabase, orders: readonly KcatOrder[]): Promise<void> {
  if (orders.length === 0) return;
  const payloads = orders.map((order) => order.payload);
  await database.withClient(async (client) => {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO orders (id, customer_id, customer_email, total, currency, created_at, updated_at)
       SELECT id, customer_id, customer_email, total, currency, at, at
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[], $5::text[], $6::timestamptz[])
           AS o(id, customer_id, customer_email, total, currency, at)`,
      [
        payloads.map((p) => p.orderId),
        payloads.map((p) => p.customerId),
        payloads.map((p) => p.customerEmail),
        payloads.map((p) => p.total),
        payloads.map((p) => p.currency),
        payloads.map((p) => p.placedAt),
      ],
    );
    const lines = payloads.flatMap((p) =>
      p.items.map((item, index) => ({ orderId: p.orderId, line: index + 1, ...item })),
    );
    await client.query(
      `INSERT INTO order_items (order_id, line, sku, quantity, unit_price)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::numeric[])`,
      [
        lines.map((l) => l.orderId),
        lines.map((l) => l.line),
        lines.map((l) => l.sku),
        lines.map((l) => l.quantity),
        lines.map((l) => l.unitPrice),
      ],
    );
    await client.query(
      `INSERT INTO order_timeline (order_id, type, event_id, at, topic)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::text[])`,
      [
        payloads.map((p) => p.orderId),
        payloads.map(() => OrderPlacedEvent.type),
        orders.map((o) => o.eventId),
        payloads.map((p) => p.placedAt),
        payloads.map(() => Topics.orders),
      ],
    );
    await client.query('COMMIT');
  });
}
