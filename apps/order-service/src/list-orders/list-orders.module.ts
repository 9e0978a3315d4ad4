import { Module } from '@nestjs/common';
import { ListOrdersController } from './list-orders.controller';

@Module({ controllers: [ListOrdersController] })
export class ListOrdersModule {}
