import { Module } from '@nestjs/common';
import { CountOrdersWhenOrderPlacedConfirmedOrCancelled } from './count-orders-when-order-placed-confirmed-or-cancelled.handler';

@Module({
  controllers: [CountOrdersWhenOrderPlacedConfirmedOrCancelled],
})
export class CountOrdersModule {}
