import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { FatalError, type EventContext } from '@pipeline/messaging';
import { PipelineMetrics } from '@pipeline/observability';
import type { OrderStatus, Prisma } from '../generated/prisma/client';
import { withItems } from '../orders/order-record';
import { transition, type SagaEventType, type Transition } from '../orders/order-state';
import { outcomePayload } from './outcome-payload';

const logger = new Logger('OrderSaga');

/**
 * Applies one consumed saga event to its order, inside the event's inbox transaction.
 *
 * The order row is locked first (SELECT ... FOR UPDATE): events of one order arrive on two
 * topics (payments, inventory) whose partitions are consumed concurrently, so two transactions
 * may decide about the same order at once; the lock makes the second see the first's outcome.
 */
export async function applySagaEvent(
  ctx: EventContext<Prisma.TransactionClient>,
  orderId: string,
  type: SagaEventType,
): Promise<Transition> {
  const { tx, metadata } = ctx;
  const [locked] = await tx.$queryRaw<{ status: OrderStatus }[]>`
    SELECT status::text AS status FROM orders WHERE id = ${orderId}::uuid FOR UPDATE`;
  if (!locked) {
    // Order events are published only after the order committed: an unknown id is a bad event.
    throw new FatalError(`order ${orderId} does not exist: cannot apply ${type} ${metadata.id}`, {
      code: 'ORDER_NOT_FOUND',
    });
  }
  const step = transition(locked.status, type);
  const consumed = { orderId, type, eventId: metadata.id, at: new Date(metadata.time) };
  if (step.emit === undefined) {
    await tx.orderTimelineEntry.create({ data: consumed });
    return step;
  }

  const now = new Date();
  const order = await tx.order.update({
    where: { id: orderId },
    data: { status: step.next, reason: step.reason ?? null, updatedAt: now },
    include: withItems,
  });
  const eventId = randomUUID();
  await ctx.publish({
    topic: Topics.orders,
    key: orderId,
    type: step.emit,
    payload: outcomePayload(order, step, now),
    correlationId: orderId,
    id: eventId,
    time: now,
  });
  // One insert for both entries, in the order they happened.
  await tx.orderTimelineEntry.createMany({
    data: [consumed, { orderId, type: step.emit, eventId, at: now }],
  });
  logger.log(`order ${orderId} ${step.next}${step.reason ? ` (${step.reason})` : ''} after ${type}`);
  const outcome = step.emit === 'order.confirmed' ? 'confirmed' : 'cancelled';
  const seconds = Math.max(0, (now.getTime() - order.createdAt.getTime()) / 1000);
  ctx.afterCommit(() => {
    PipelineMetrics.ordersCompleted.inc({ outcome, reason: step.reason ?? 'none' });
    PipelineMetrics.orderDuration.observe({ outcome }, seconds);
  });
  return step;
}
