import { Module } from '@nestjs/common';
import { CustomerWindowsController } from './customer-windows.controller';
import { CustomerWindowsQueries } from './customer-windows.queries';

@Module({ controllers: [CustomerWindowsController], providers: [CustomerWindowsQueries] })
export class QueryWindowsModule {}
