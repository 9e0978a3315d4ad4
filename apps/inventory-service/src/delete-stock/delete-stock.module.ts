import { Module } from '@nestjs/common';
import { DeleteStockController } from './delete-stock.controller';
import { DeleteStockService } from './delete-stock.service';

@Module({ controllers: [DeleteStockController], providers: [DeleteStockService] })
export class DeleteStockModule {}
