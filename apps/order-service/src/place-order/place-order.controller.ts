import {
  Body,
  ConflictException,
  Controller,
  createParamDecorator,
  type ExecutionContext,
  HttpCode,
  HttpStatus,
  Post,
  Res,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ZodValidationPipe } from '@pipeline/service-kit';
import type { OrderStatus } from '../generated/prisma/enums';
import {
  IdempotencyHeaderSchema,
  PlaceOrderRequestSchema,
  type PlaceOrderRequest,
} from './place-order.request';
import { PlaceOrderService } from './place-order.service';

/**
 * The Idempotency-Key header under its own name, so a 400 names it. Sent twice, it stays a list
 * (Node would join the values with ", " into one plausible key) and the schema refuses it.
 */
const IdempotencyHeader = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const values = context.switchToHttp().getRequest<FastifyRequest>().raw.headersDistinct['idempotency-key'];
  if (values === undefined) return {};
  return { 'Idempotency-Key': values.length === 1 ? values[0] : values };
});

export interface PlaceOrderResponse {
  readonly orderId: string;
  readonly status: OrderStatus;
}

@Controller('orders')
export class PlaceOrderController {
  constructor(private readonly service: PlaceOrderService) {}

  /** 202: accepted, the saga runs on. 200: the same Idempotency-Key and body were seen before. */
  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  async place(
    @Body(new ZodValidationPipe(PlaceOrderRequestSchema, 'body')) body: PlaceOrderRequest,
    @IdempotencyHeader(new ZodValidationPipe(IdempotencyHeaderSchema, 'header'))
    headers: z.output<typeof IdempotencyHeaderSchema>,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<PlaceOrderResponse> {
    const key = headers['Idempotency-Key'];
    const result = await this.service.place(body, key);
    switch (result.kind) {
      case 'placed':
        return { orderId: result.orderId, status: 'PENDING' };
      case 'replayed':
        response.status(HttpStatus.OK);
        return { orderId: result.orderId, status: result.status };
      case 'conflict':
        throw new ConflictException(
          `Idempotency-Key "${key}" was already used for order ${result.orderId} with a different request body`,
        );
    }
  }
}
