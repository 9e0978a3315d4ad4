import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type {
  PaymentAuthorizedPayload,
  PaymentDeclinedPayload,
  PaymentRefundedPayload,
  StockRejectedPayload,
  StockReservedPayload,
} from '@pipeline/contracts';
import { EventBatchPattern, type ConsumedEvent, type EventBatch } from '@pipeline/messaging';
import { SERVICE_CONFIG } from '@pipeline/service-kit';
import type { OrderConfig } from '../config';
import { SagaEventTypes } from '../orders/order-state';
import { applySagaEvents } from './apply-saga-events';

type SagaEventPayload =
  | PaymentAuthorizedPayload
  | PaymentDeclinedPayload
  | PaymentRefundedPayload
  | StockReservedPayload
  | StockRejectedPayload;

/**
 * The saga's step in order-service. stock.reserved confirms a PENDING order (order.confirmed);
 * payment.declined or stock.rejected cancels it (order.cancelled with the reason);
 * payment.authorized and payment.refunded only add to the timeline. One handler for all five
 * types, so one call sees an order's events of the batch together, in order.
 */
@Controller()
export class AdvanceOrderWhenPaymentOrStockDecided {
  private readonly topicPrefix: string;

  constructor(@Inject(SERVICE_CONFIG) config: OrderConfig) {
    this.topicPrefix = config.KAFKA_TOPIC_PREFIX;
  }

  @EventBatchPattern(SagaEventTypes)
  async handle(
    @Payload() events: readonly ConsumedEvent<SagaEventPayload>[],
    @Ctx() batch: EventBatch,
  ): Promise<void> {
    await applySagaEvents(batch, events, this.topicPrefix);
  }
}
