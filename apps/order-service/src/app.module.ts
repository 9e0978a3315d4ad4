import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { OrderConfig } from './config';
import { GetOrderModule } from './get-order/get-order.module';
import { ListOrdersModule } from './list-orders/list-orders.module';
import { PrismaClient } from './generated/prisma/client';
import { fillTimelinePositions } from './orders/order-timeline';
import { PlaceOrderModule } from './place-order/place-order.module';
import { SagaModule } from './saga/saga.module';

@Module({})
export class AppModule {
  static forConfig(config: OrderConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: 'order',
          config,
          prismaClient: PrismaClient,
          consumes: [Topics.payments, Topics.inventory],
          // Fills in where order.placed / confirmed / cancelled landed once published.
          onOutboxPublished: fillTimelinePositions,
        }),
        // One feature module per use case; orders/ holds what they share (state, records, views).
        PlaceOrderModule,
        GetOrderModule,
        ListOrdersModule,
        SagaModule,
      ],
    };
  }
}
