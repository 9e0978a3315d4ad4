import { Module } from '@nestjs/common';
import { CustomerWindowsController } from './customer-windows.controller';
import { CustomerWindowsReader } from './customer-windows.reader';

@Module({ controllers: [CustomerWindowsController], providers: [CustomerWindowsReader] })
export class QueryWindowsModule {}
