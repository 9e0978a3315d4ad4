import { Module } from '@nestjs/common';
import { GetOrderController } from '../get-order/get-order.controller';
import { ListOrdersController } from '../list-orders/list-orders.controller';
import { PlaceOrderController } from '../place-order/place-order.controller';
import { PlaceOrderService } from '../place-order/place-order.service';
import { AdvanceOrderWhenPaymentOrStockDecided } from '../saga/advance-order-when-payment-or-stock-decided.handler';

/** The order use cases: HTTP (place, get, list) and the saga's event handler. */
@Module({
  controllers: [
    PlaceOrderController,
    GetOrderController,
    ListOrdersController,
    AdvanceOrderWhenPaymentOrStockDecided,
  ],
  providers: [PlaceOrderService],
})
export class OrdersModule {}
