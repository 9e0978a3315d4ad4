import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { OrderConfig } from './config';
import { PrismaClient } from './generated/prisma/client';
import { fillTimelinePositions } from './orders/order-timeline';
import { OrdersModule } from './orders/orders.module';

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
        OrdersModule,
      ],
    };
  }
}
