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
import { lockStock, moveToReserved } from './reserve-stock.queries';

/**
 * Reserves every item of a paid order, or none. Its effects (stock moved, the reservation, the
 * outgoing events) commit with the consumed event's inbox row.
 */
@Controller()
export class ReserveStockWhenPaymentAuthorized {
  @EventPattern(PaymentAuthorizedEvent.type)
  async handle(
    @Payload() payment: PaymentAuthorizedPayload,
    @Ctx() ctx: EventContext<Prisma.TransactionClient>,
  ): Promise<void> {
    const { orderId } = payment;
    const lines = mergeLines(payment.items);
    // Claim the order first: one reservation per order whatever is redelivered (also the same
    // order under a new event id). A concurrent claim waits on the primary key, then finds the
    // row and does nothing. The row says REJECTED until the reservation below succeeds.
    const { count } = await ctx.tx.reservation.createMany({
      data: { orderId, items: lines.map((line) => ({ ...line })), status: 'REJECTED' },
      skipDuplicates: true,
    });
    if (count === 0) return;

    const locked = await lockStock(
      ctx.tx,
      lines.map((line) => line.sku),
    );
    const plan = planReservation(lines, new Map(locked.map((row) => [row.sku, row.available])));
    const now = new Date().toISOString();
    if (plan.status === 'REJECTED') {
      const payload: StockRejectedPayload = {
        orderId,
        missingSkus: [...plan.missingSkus],
        reason: 'out_of_stock',
        rejectedAt: now,
      };
      await ctx.publish({ topic: Topics.inventory, key: orderId, type: StockRejectedEvent.type, payload });
      return;
    }

    const changed = await moveToReserved(ctx.tx, plan.lines);
    await ctx.tx.reservation.update({ where: { orderId }, data: { status: 'RESERVED' } });
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
