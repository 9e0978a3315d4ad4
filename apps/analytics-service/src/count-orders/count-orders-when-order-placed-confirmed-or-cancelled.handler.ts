import { Controller, Inject, Logger } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  OrderCancelledEvent,
  OrderConfirmedEvent,
  OrderPlacedEvent,
  OrdersCountUpdatedEvent,
  Topics,
  foldOrderCounts,
  ordersCountKey,
  partitionKey,
  shiftCounts,
  windowKey,
  windowOf,
  type Fold,
  type LateEvent,
  type OrderCancelledPayload,
  type OrderConfirmedPayload,
  type OrderCount,
  type OrderPlacedPayload,
  type OrdersCountUpdatedPayload,
  type WindowChange,
  type WindowCounts,
} from '@pipeline/contracts';
import { EventBatchPattern, FatalError, type ConsumedEvent, type EventBatch } from '@pipeline/messaging';
import { SERVICE_CONFIG } from '@pipeline/service-kit';
import type { AnalyticsConfig } from '../config';
import { addToWindows, lockWindows, recordLateEvents } from './customer-window-rows';
import { advanceWatermarks, lockWatermarks } from './partition-watermark';

type OrderEvent = ConsumedEvent<OrderPlacedPayload | OrderConfirmedPayload | OrderCancelledPayload>;

/**
 * Adds order events to their customer's window of event time (`ce_time`, not arrival time), or
 * records them as late; publishes the window's counts after each counted event. A deterministic
 * function of each partition's events in offset order (the inbox drops redeliveries), whatever
 * the batch boundaries: that is what lets an offset reset rebuild identical windows.
 *
 * No counting advisory lock any more (the old one made whole transactions take turns, because
 * per-event upserts locked shared window rows in arrival order and could deadlock): every row
 * this handler locks, it locks sorted by primary key, watermarks before windows, so two batches
 * sharing rows queue on the first shared one and cannot wait on each other in a cycle.
 */
@Controller()
export class CountOrdersWhenOrderPlacedConfirmedOrCancelled {
  private readonly logger = new Logger(CountOrdersWhenOrderPlacedConfirmedOrCancelled.name);
  private readonly graceMs: number;

  constructor(@Inject(SERVICE_CONFIG) config: AnalyticsConfig) {
    this.graceMs = config.ANALYTICS_GRACE_MS;
  }

  // One method for the three types: it gets them together, in offset order per partition.
  @EventBatchPattern([OrderPlacedEvent.type, OrderConfirmedEvent.type, OrderCancelledEvent.type])
  async handle(@Payload() events: readonly OrderEvent[], @Ctx() batch: EventBatch): Promise<void> {
    const counts: OrderCount<OrderEvent>[] = events.map((event) => ({
      ref: event,
      topic: event.position.topic,
      partition: event.position.partition,
      customerId: event.payload.customerId,
      eventTime: new Date(event.metadata.time),
      change: changeOf(event),
    }));
    const watermarks = await lockWatermarks(
      batch.sql,
      distinctBy(counts, (c) => partitionKey(c.topic, c.partition)),
    );
    // Every event's window, late ones included: which are late is known only after the fold.
    const touched = distinctBy(
      counts.map((c) => ({ customerId: c.customerId, windowStart: windowOf(c.eventTime).start })),
      (w) => windowKey(w.customerId, w.windowStart),
    );
    const windows = await lockWindows(batch.sql, touched);
    const fold = foldOrderCounts(counts, { watermarks, windows, graceMs: this.graceMs });

    const stored = await addToWindows(batch.sql, fold.windows);
    publishCounts(batch, fold, stored);
    await recordLateEvents(
      batch.sql,
      fold.late.map(({ ref, customerId, eventTime }) => ({
        eventId: ref.metadata.id,
        customerId,
        type: ref.metadata.type,
        eventTime,
      })),
    );
    await advanceWatermarks(batch.sql, fold.watermarks);
    if (fold.late.length > 0) batch.afterCommit(() => this.logLate(fold.late));
  }

  private logLate(late: readonly LateEvent<OrderEvent>[]): void {
    for (const { ref, window, watermark } of late)
      this.logger.log(
        `${ref.metadata.type} ${ref.metadata.id} at ${ref.metadata.time} is late (window ` +
          `${window.start.toISOString()} closed, watermark ${watermark.toISOString()}): recorded, not counted`,
      );
  }
}

/** One `orders-count.updated` per counted event, with its window's counts right after it. */
function publishCounts(
  batch: EventBatch,
  fold: Fold<OrderEvent>,
  stored: ReadonlyMap<string, WindowCounts>,
): void {
  const folded = new Map(fold.windows.map((w) => [windowKey(w.customerId, w.window.start), w.counts]));
  for (const { ref, customerId, window, counts } of fold.counted) {
    const key = windowKey(customerId, window.start);
    const [expected, actual] = [folded.get(key), stored.get(key)];
    if (expected === undefined || actual === undefined)
      throw new Error(`upsert of window ${customerId}/${window.start.toISOString()} returned nothing`);
    const payload: OrdersCountUpdatedPayload = {
      customerId,
      windowStart: window.start.toISOString(),
      windowEnd: window.end.toISOString(),
      ...shiftCounts(counts, expected, actual),
    };
    batch.publish(ref, {
      topic: Topics.ordersCount,
      key: ordersCountKey(customerId, payload.windowStart),
      type: OrdersCountUpdatedEvent.type,
      payload,
    });
  }
}

function changeOf(event: OrderEvent): WindowChange {
  switch (event.metadata.type) {
    case OrderPlacedEvent.type:
      return { placed: 1 };
    case OrderConfirmedEvent.type:
      return { confirmed: 1, revenue: (event.payload as OrderConfirmedPayload).total };
    case OrderCancelledEvent.type:
      return { cancelled: 1 };
    default:
      throw new FatalError(`not an order event this handler counts: ${event.metadata.type}`, {
        code: 'UNEXPECTED_EVENT_TYPE',
      });
  }
}

function distinctBy<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [keyOf(item), item])).values()];
}
