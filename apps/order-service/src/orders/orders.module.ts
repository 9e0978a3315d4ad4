import { Module } from '@nestjs/common';
import type pg from 'pg';
import { DATABASE_POOL, SERVICE_CONFIG } from '@pipeline/service-kit';
import { GetOrderController } from '../get-order/get-order.controller';
import { ListOrdersController } from '../list-orders/list-orders.controller';
import { PlaceOrderController } from '../place-order/place-order.controller';
import { OrderGroupCommit } from '../place-order/order-group-commit';
import { writeOrderGroup } from '../place-order/order-group-writer';
import { ORDER_GROUP_COMMIT, PlaceOrderService } from '../place-order/place-order.service';
import { AdvanceOrderWhenPaymentOrStockDecided } from '../saga/advance-order-when-payment-or-stock-decided.handler';
import type { OrderConfig } from '../config';

/** The order use cases: HTTP (place, get, list) and the saga's event handler. */
@Module({
  controllers: [
    PlaceOrderController,
    GetOrderController,
    ListOrdersController,
    AdvanceOrderWhenPaymentOrStockDecided,
  ],
  providers: [
    PlaceOrderService,
    {
      provide: ORDER_GROUP_COMMIT,
      inject: [DATABASE_POOL, SERVICE_CONFIG],
      useFactory: (pool: pg.Pool, config: OrderConfig) =>
        new OrderGroupCommit((orders) => writeOrderGroup(pool, orders), {
          windowMs: config.ORDER_GROUP_COMMIT_WINDOW_MS,
          maxOrders: config.ORDER_GROUP_COMMIT_MAX_ORDERS,
        }),
    },
  ],
})
export class OrdersModule {}
