import { randomUUID } from 'node:crypto';
import { OrderPlacedEvent, OrderPlacedPayloadSchema, Topics } from '@pipeline/contracts';
import { sqlOverPrisma, writeToOutbox } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { orderTotal } from '@pipeline/contracts';
import type { PlaceOrderRequest } from './place-order.request';

/** Stores a PENDING order, its lines and its first timeline entry, and puts order.placed in the outbox. */
export async function createOrder(
  tx: Prisma.TransactionClient,
  orderId: string,
  request: PlaceOrderRequest,
): Promise<void> {
  const placedAt = new Date();
  const eventId = randomUUID();
  const total = orderTotal(request.items);
  const { customerId, customerEmail, currency, items } = request;
  await tx.order.create({
    data: {
      id: orderId,
      customerId,
      customerEmail,
      total,
      currency,
      createdAt: placedAt,
      updatedAt: placedAt,
      items: { create: items.map((item, index) => ({ line: index + 1, ...item })) },
      timeline: { create: { type: OrderPlacedEvent.type, eventId, at: placedAt } },
    },
  });
  const payload = OrderPlacedPayloadSchema.parse({
    orderId,
    customerId,
    customerEmail,
    items,
    total,
    currency,
    placedAt: placedAt.toISOString(),
  });
  await writeToOutbox(sqlOverPrisma(tx),
    [
      {
        topic: Topics.orders,
        key: orderId,
        type: OrderPlacedEvent.type,
        payload,
        correlationId: orderId,
        id: eventId,
        time: placedAt,
      },
    ],
    { source: 'order-service' },
  );
}
