import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  PaymentAuthorizedEvent,
  StockRejectedEvent,
  StockReservedEvent,
  Topics,
  type PaymentAuthorizedPayload,
  type StockRejectedPayload,
  type StockReservedPayload,
} from '@pipeline/contracts';
import {
  EventBatchPattern,
  FatalError,
  RetriableError,
  type ConsumedEvent,
  type EventBatch,
  type PublishedEvent,
} from '@pipeline/messaging';
import { stockChanged, toStockLevel, type StockRow } from '../stock/stock-level';
import {
  planBatch,
  type BatchPlan,
  type OrderToReserve,
  type PlannedOrder,
} from './reserve-stock-batch.policy';
import { claimAndMove, findClaimed, lockStock } from './reserve-stock.queries';

interface Order extends OrderToReserve {
  readonly event: ConsumedEvent<PaymentAuthorizedPayload>;
}

/**
 * Reserves every item of each paid order, or none. Three statements per batch: lock its SKUs,
 * find the orders already claimed, insert the claims and move the stock. The effects (stock moved,
 * the reservations, the outgoing events) commit with the batch's inbox rows.
 */
@Controller()
export class ReserveStockWhenPaymentAuthorized {
  @EventBatchPattern(PaymentAuthorizedEvent.type)
  async handle(
    @Payload() events: readonly ConsumedEvent<PaymentAuthorizedPayload>[],
    @Ctx() batch: EventBatch,
  ): Promise<void> {
    const orders: Order[] = events.map((event) => ({
      orderId: event.payload.orderId.toLowerCase(),
      items: event.payload.items,
      event,
    }));
    const skus = [...new Set(orders.flatMap((order) => order.items.map((item) => item.sku)))];
    const locked = await lockStock(batch.sql, skus);
    // The reservation row claims the order: one per order whatever is redelivered (also the same
    // order under a new event id), so a redelivery neither moves stock nor publishes again. Read
    // after the locks: whoever claimed one of these orders with stock held its SKU rows, so its
    // claim is committed and visible by now.
    const claimed = await findClaimed(
      batch.sql,
      orders.map((order) => order.orderId),
    );
    const plan = planBatch(orders, claimed, new Map(locked.map((row) => [row.sku, row])));
    if (plan.orders.length === 0) return;

    const { inserted, moved } = await claimAndMove(
      batch.sql,
      plan.orders.map(({ order, lines, plan: { status } }) => ({ orderId: order.orderId, lines, status })),
      plan.moves,
    );
    const lost = plan.orders.find((p) => p.plan.status === 'RESERVED' && !inserted.has(p.order.orderId));
    // Claimed meanwhile by a transaction that locked none of its SKUs (they did not exist yet):
    // the plan counted units that order does not take. Roll back (the stock move too); the retry
    // finds the claim.
    if (lost !== undefined)
      throw new RetriableError(`order ${lost.order.orderId} was claimed concurrently`, {
        code: 'RESERVATION_CLAIMED_CONCURRENTLY',
      });
    const updatedAt = checkMoved(plan, moved);

    const now = new Date().toISOString();
    for (const planned of plan.orders) {
      // Not inserted: a REJECTED claim made meanwhile by another transaction; it published.
      if (inserted.has(planned.order.orderId))
        batch.publish(planned.order.event, outcome(planned, updatedAt, now));
    }
  }
}

/**
 * The stock update must leave each SKU where the plan says: the levels published per order are
 * computed from the locked rows, so a difference would publish a history that never was.
 */
function checkMoved(plan: BatchPlan<Order>, moved: readonly StockRow[]): Map<string, Date | string> {
  const updatedAt = new Map<string, Date | string>();
  for (const row of moved) {
    const expected = plan.final.get(row.sku);
    if (expected?.available !== row.available || expected.reserved !== row.reserved)
      throw new FatalError(
        `stock of ${row.sku} moved to ${row.available}/${row.reserved}, planned ${expected?.available}/${expected?.reserved}`,
        { code: 'STOCK_MOVE_MISMATCH' },
      );
    updatedAt.set(row.sku, row.updated_at);
  }
  if (updatedAt.size !== plan.final.size)
    throw new FatalError(`stock update changed ${updatedAt.size} of ${plan.final.size} locked SKUs`, {
      code: 'STOCK_MOVE_MISMATCH',
    });
  return updatedAt;
}

/**
 * stock.reserved or stock.rejected, and per reserved SKU its level right after this order: the
 * changelog holds each reservation's step as if the orders had been applied one by one, the last
 * record per SKU being its committed level (the e2e test reads the whole history).
 */
function outcome(
  { order, plan, levels }: PlannedOrder<Order>,
  updatedAt: ReadonlyMap<string, Date | string>,
  now: string,
): PublishedEvent[] {
  const { orderId, items } = order.event.payload;
  if (plan.status === 'REJECTED') {
    const payload: StockRejectedPayload = {
      orderId,
      missingSkus: [...plan.missingSkus],
      reason: 'out_of_stock',
      rejectedAt: now,
    };
    return [{ topic: Topics.inventory, key: orderId, type: StockRejectedEvent.type, payload }];
  }
  // The order's own lines (each within the contract's 1..1000 units), not the merged ones.
  const payload: StockReservedPayload = {
    orderId,
    items: items.map(({ sku, quantity }) => ({ sku, quantity })),
    reservedAt: now,
  };
  return [
    { topic: Topics.inventory, key: orderId, type: StockReservedEvent.type, payload },
    ...levels.map((level) => stockChanged(toStockLevel({ ...level, updated_at: updatedAt.get(level.sku)! }))),
  ];
}
