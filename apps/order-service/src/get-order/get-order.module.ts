import { Module } from '@nestjs/common';
import { GetOrderController } from './get-order.controller';

@Module({ controllers: [GetOrderController] })
export class GetOrderModule {}
