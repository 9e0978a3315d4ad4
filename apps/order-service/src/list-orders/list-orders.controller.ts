import { Controller, Get, Inject, Query } from '@nestjs/common';
import { DATABASE, ZodValidationPipe } from '@pipeline/service-kit';
import type { Prisma } from '../generated/prisma/client';
import type { OrderDatabase } from '../orders/order-database';
import { orderSummaryView, type OrderSummaryView } from '../orders/order.view';
import { ListOrdersQuerySchema, type ListOrdersQuery } from './list-orders.request';
import { encodeCursor } from './order-cursor';

export interface OrderPage {
  readonly items: OrderSummaryView[];
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

@Controller('orders')
export class ListOrdersController {
  constructor(@Inject(DATABASE) private readonly db: OrderDatabase) {}

  /** Newest first. Keyset pagination on (created_at, id): stable under inserts, no OFFSET scans. */
  @Get()
  async list(
    @Query(new ZodValidationPipe(ListOrdersQuerySchema, 'query')) query: ListOrdersQuery,
  ): Promise<OrderPage> {
    const where: Prisma.OrderWhereInput = {
      ...(query.customerId === undefined ? {} : { customerId: query.customerId }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.cursor === undefined
        ? {}
        : {
            OR: [
              { createdAt: { lt: query.cursor.createdAt } },
              { createdAt: query.cursor.createdAt, id: { lt: query.cursor.id } },
            ],
          }),
    };
    const rows = await this.db.order.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(orderSummaryView),
      nextCursor:
        rows.length > query.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
    };
  }
}
