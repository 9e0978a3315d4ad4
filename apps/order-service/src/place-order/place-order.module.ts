import { Module } from '@nestjs/common';
import type pg from 'pg';
import { DATABASE_POOL, SERVICE_CONFIG } from '@pipeline/service-kit';
import type { OrderConfig } from '../config';
import { OrderGroupCommit } from './order-group-commit';
import { writeOrderGroup } from './order-group-writer';
import { PlaceOrderController } from './place-order.controller';
import { ORDER_GROUP_COMMIT, PlaceOrderService } from './place-order.service';

/** POST /orders: validated once, then group-committed with the orders placed beside it. */
@Module({
  controllers: [PlaceOrderController],
  providers: [
    PlaceOrderService,
    {
      provide: ORDER_GROUP_COMMIT,
      inject: [DATABASE_POOL, SERVICE_CONFIG],
      useFactory: (pool: pg.Pool, config: OrderConfig) =>
        new OrderGroupCommit((orders) => writeOrderGroup(pool, orders), {
          maxOrders: config.ORDER_GROUP_COMMIT_MAX_ORDERS,
        }),
    },
  ],
})
export class PlaceOrderModule {}
