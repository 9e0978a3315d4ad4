import { Module } from '@nestjs/common';
import { CountOrderWhenOrderCancelled } from './count-order-when-order-cancelled.handler';
import { CountOrderWhenOrderConfirmed } from './count-order-when-order-confirmed.handler';
import { CountOrderWhenOrderPlaced } from './count-order-when-order-placed.handler';
import { WindowCounter } from './window-counter';

@Module({
  controllers: [CountOrderWhenOrderPlaced, CountOrderWhenOrderConfirmed, CountOrderWhenOrderCancelled],
  providers: [WindowCounter],
})
export class CountOrdersModule {}
