import { Module } from '@nestjs/common';
import { SetStockController } from './set-stock.controller';
import { SetStockService } from './set-stock.service';

@Module({ controllers: [SetStockController], providers: [SetStockService] })
export class SetStockModule {}
