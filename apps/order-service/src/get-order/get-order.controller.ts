import { Controller, Get, Inject, NotFoundException, Param } from '@nestjs/common';
import { z } from 'zod';
import { DATABASE, ZodValidationPipe } from '@pipeline/service-kit';
import type { OrderDatabase } from '../orders/order-database';
import { orderView, withDetails, type OrderView } from '../orders/order.view';

const OrderParamsSchema = z.strictObject({ id: z.uuid({ error: 'expected an order id (UUID)' }) });

@Controller('orders')
export class GetOrderController {
  constructor(@Inject(DATABASE) private readonly db: OrderDatabase) {}

  /** 404 for an unknown id, 400 for one that is not a UUID. */
  @Get(':id')
  async get(
    @Param(new ZodValidationPipe(OrderParamsSchema, 'path')) params: { id: string },
  ): Promise<OrderView> {
    // Prisma reads the order, its items and its timeline in separate queries: one REPEATABLE READ
    // snapshot keeps them consistent (never a PENDING order with its order.cancelled entry).
    const order = await this.db.$transaction(
      (tx) => tx.order.findUnique({ where: { id: params.id }, include: withDetails }),
      { isolationLevel: 'RepeatableRead' },
    );
    if (!order) throw new NotFoundException(`order ${params.id} not found`);
    return orderView(order);
  }
}
