import { Controller, Get, Param, Query } from '@nestjs/common';
import { ZodValidationPipe } from '@pipeline/service-kit';
import { CustomerWindowsQueries } from './customer-windows.queries';
import {
  type CustomerWindowsView,
  WindowsParamsSchema,
  WindowsQuerySchema,
  type WindowsQuery,
} from './query-windows.request';

@Controller('analytics/customers')
export class CustomerWindowsController {
  constructor(private readonly queries: CustomerWindowsQueries) {}

  /** `GET /analytics/customers/:customerId/windows?from=&to=`: 400 naming the field when malformed. */
  @Get(':customerId/windows')
  windows(
    @Param(new ZodValidationPipe(WindowsParamsSchema, 'path')) params: { customerId: string },
    @Query(new ZodValidationPipe(WindowsQuerySchema, 'query')) query: WindowsQuery,
  ): Promise<CustomerWindowsView> {
    return this.queries.read(params.customerId, query);
  }
}
