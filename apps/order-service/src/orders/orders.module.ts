import { Module } from '@nestjs/common';
import { CancelOrderWhenPaymentDeclined } from '../cancel-order/cancel-order-when-payment-declined.handler';
import { CancelOrderWhenStockRejected } from '../cancel-order/cancel-order-when-stock-rejected.handler';
import { ConfirmOrderWhenStockReserved } from '../confirm-order/confirm-order-when-stock-reserved.handler';
import { GetOrderController } from '../get-order/get-order.controller';
import { ListOrdersController } from '../list-orders/list-orders.controller';
import { PlaceOrderController } from '../place-order/place-order.controller';
import { PlaceOrderService } from '../place-order/place-order.service';
import { RecordTimelineWhenPaymentAuthorized } from '../record-timeline/record-timeline-when-payment-authorized.handler';
import { RecordTimelineWhenPaymentRefunded } from '../record-timeline/record-timeline-when-payment-refunded.handler';

/** The order use cases: HTTP (place, get, list) and the saga's event handlers. */
@Module({
  controllers: [
    PlaceOrderController,
    GetOrderController,
    ListOrdersController,
    ConfirmOrderWhenStockReserved,
    CancelOrderWhenPaymentDeclined,
    CancelOrderWhenStockRejected,
    RecordTimelineWhenPaymentAuthorized,
    RecordTimelineWhenPaymentRefunded,
  ],
  providers: [PlaceOrderService],
})
export class OrdersModule {}
