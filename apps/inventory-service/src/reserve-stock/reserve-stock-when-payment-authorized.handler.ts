import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  PaymentAuthorizedEvent,
  StockRejectedEvent,
  StockReservedEvent,
  Topics,
  type PaymentAuthorizedPayload,
  type StockRejectedPayload,
  type StockReservedPayload,
} from '@pipeline/contracts';
import type { EventContext } from '@pipeline/messaging';
import type { Prisma } from '../generated/prisma/client';
import { stockChanged, toStockLevel } from '../stock/stock-level';
import { mergeLines, planReservation } from './reserve-stock.policy';
import { claimAndReserve, claimRejected, lockStock, takeReservationTurn } from './reserve-stock.queries';

/**
 * Reserves every item of a paid order, or none. Its effects (stock moved, the reservation, the
 * outgoing events) commit with the consumed event's inbox row.
 */
@Controller()
export class ReserveStockWhenPaymentAuthorized {
  /** Transactions that already hold the reservation turn (one chunk of events shares one). */
  private readonly turns = new WeakSet<object>();

  @EventPattern(PaymentAuthorizedEvent.type)
  async handle(
    @Payload() payment: PaymentAuthorizedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    const { orderId } = payment;
    const { tx } = ctx;
    if (!this.turns.has(tx)) {
      await takeReservationTurn(tx);
      this.turns.add(tx);
    }
    const lines = mergeLines(payment.items);
    const locked = await lockStock(
      tx,
      lines.map((line) => line.sku),
    );
    const plan = planReservation(lines, new Map(locked.map((row) => [row.sku, row.available])));
    const now = new Date().toISOString();
    // The reservation row claims the order: one per order whatever is redelivered (also the same
    // order under a new event id). A concurrent claim waits on the primary key, then finds the
    // row and does nothing, so a redelivery neither moves stock nor publishes again.
    if (plan.status === 'REJECTED') {
      if (!(await claimRejected(tx, orderId, lines))) return;
      const payload: StockRejectedPayload = {
        orderId,
        missingSkus: [...plan.missingSkus],
        reason: 'out_of_stock',
        rejectedAt: now,
      };
      await ctx.publish({ topic: Topics.inventory, key: orderId, type: StockRejectedEvent.type, payload });
      return;
    }

    const changed = await claimAndReserve(tx, orderId, plan.lines);
    if (changed.length === 0) return;
    // The order's own lines (each within the contract's 1..1000 units), not the merged ones.
    const payload: StockReservedPayload = {
      orderId,
      items: payment.items.map(({ sku, quantity }) => ({ sku, quantity })),
      reservedAt: now,
    };
    await ctx.publish([
      { topic: Topics.inventory, key: orderId, type: StockReservedEvent.type, payload },
      ...changed.map((row) => stockChanged(toStockLevel(row))),
    ]);
  }
}
