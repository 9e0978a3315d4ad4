import { Controller, Get, Param, Query } from '@nestjs/common';
import { ZodValidationPipe } from '@pipeline/service-kit';
import { CustomerWindowsReader } from './customer-windows.reader';
import {
  type CustomerWindowsView,
  WindowsParamsSchema,
  WindowsQuerySchema,
  type WindowsQuery,
} from './windows-query.schema';

@Controller('analytics/customers')
export class CustomerWindowsController {
  constructor(private readonly reader: CustomerWindowsReader) {}

  /** `GET /analytics/customers/:customerId/windows?from=&to=`: 400 naming the field when malformed. */
  @Get(':customerId/windows')
  windows(
    @Param(new ZodValidationPipe(WindowsParamsSchema, 'path')) params: { customerId: string },
    @Query(new ZodValidationPipe(WindowsQuerySchema, 'query')) query: WindowsQuery,
  ): Promise<CustomerWindowsView> {
    return this.reader.read(params.customerId, query);
  }
}
