import { Body, Controller, HttpStatus, Param, Put, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ZodValidationPipe } from '@pipeline/service-kit';
import type { StockLevel } from '../stock/stock-level';
import { SetStockRequestSchema, type SetStockRequest } from './set-stock.request';
import { SetStockService } from './set-stock.service';

@Controller('inventory')
export class SetStockController {
  constructor(private readonly service: SetStockService) {}

  /** Restock (or correct) a SKU: 200 with the new level, 201 when the SKU is new. */
  @Put(':sku')
  async set(
    @Param('sku') sku: string,
    @Body(new ZodValidationPipe(SetStockRequestSchema, 'body')) body: SetStockRequest,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<StockLevel> {
    const { level, created } = await this.service.set(sku, body.available);
    response.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return level;
  }
}
