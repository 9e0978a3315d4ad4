import { Controller, Delete, HttpCode, HttpStatus, NotFoundException, Param } from '@nestjs/common';
import { DeleteStockService } from './delete-stock.service';

@Controller('inventory')
export class DeleteStockController {
  constructor(private readonly service: DeleteStockService) {}

  /** 204, and a tombstone (null value, key = SKU) on `inventory.stock`; 404 for an unknown SKU. */
  @Delete(':sku')
  @HttpCode(HttpStatus.NO_CONTENT)
  async delete(@Param('sku') sku: string): Promise<void> {
    if (!(await this.service.delete(sku))) throw new NotFoundException(`unknown SKU "${sku}"`);
  }
}
