import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  OrdersCountUpdatedEvent,
  type OrdersCountUpdatedPayload,
  Topics,
  ordersCountKey,
} from '@pipeline/contracts';
import type { EventContext } from '@pipeline/messaging';
import { SERVICE_CONFIG } from '@pipeline/service-kit';
import type { AnalyticsConfig } from '../config';
import type { Prisma } from '../generated/prisma/client';
import { isLate, type Window, windowOf } from '../windows/tumbling-window';
import { advanceWatermark, takeCountingTurn } from './partition-watermark';

/** What one order event adds to its window. */
export interface WindowChange {
  readonly placed?: 1;
  readonly confirmed?: 1;
  readonly cancelled?: 1;
  /** Confirmed revenue, exact decimal string. */
  readonly revenue?: string;
}

interface WindowCounts {
  readonly placed: number;
  readonly confirmed: number;
  readonly cancelled: number;
  readonly revenue: string;
}

/**
 * Adds an order event to its customer's window of event time (`ce_time`, not arrival time), or
 * records it as late. A deterministic function of the events of a partition in offset order
 * (the inbox drops redeliveries), which is what lets an offset reset rebuild identical windows.
 */
@Injectable()
export class WindowCounter {
  private readonly logger = new Logger(WindowCounter.name);
  private readonly graceMs: number;
  /** Transactions that already hold the counting turn (one chunk of events shares one). */
  private readonly turns = new WeakSet<object>();

  constructor(@Inject(SERVICE_CONFIG) config: AnalyticsConfig) {
    this.graceMs = config.ANALYTICS_GRACE_MS;
  }

  async count(
    ctx: EventContext<Prisma.TransactionClient>,
    customerId: string,
    change: WindowChange,
  ): Promise<void> {
    const { tx, metadata } = ctx;
    if (!this.turns.has(tx)) {
      await takeCountingTurn(tx);
      this.turns.add(tx);
    }
    const eventTime = new Date(metadata.time);
    const window = windowOf(eventTime);
    const watermark = await advanceWatermark(tx, ctx.topic, ctx.partition, eventTime);
    if (isLate(window, this.graceMs, watermark)) {
      await tx.lateEvent.createMany({
        data: [{ eventId: metadata.id, customerId, type: metadata.type, eventTime }],
        skipDuplicates: true,
      });
      this.logger.log(
        `${metadata.type} ${metadata.id} at ${metadata.time} is late (window ${window.start.toISOString()} closed, ` +
          `watermark ${watermark?.toISOString()}): recorded, not counted`,
      );
      return;
    }
    const counts = await this.add(tx, customerId, window, change);
    const payload: OrdersCountUpdatedPayload = {
      customerId,
      windowStart: window.start.toISOString(),
      windowEnd: window.end.toISOString(),
      ...counts,
    };
    await ctx.publish({
      topic: Topics.ordersCount,
      key: ordersCountKey(customerId, payload.windowStart),
      type: OrdersCountUpdatedEvent.type,
      payload,
    });
  }

  /**
   * One atomic upsert: concurrent partitions touching the same window serialise on its row, and
   * the counts returned are the window's state right after this change, the value to publish.
   */
  private async add(
    tx: Prisma.TransactionClient,
    customerId: string,
    window: Window,
    change: WindowChange,
  ): Promise<WindowCounts> {
    const rows = await tx.$queryRaw<WindowCounts[]>`
      INSERT INTO customer_windows (customer_id, window_start, window_end, placed, confirmed, cancelled, revenue)
      VALUES (${customerId}, ${window.start}, ${window.end}, ${change.placed ?? 0}, ${change.confirmed ?? 0},
              ${change.cancelled ?? 0}, ${change.revenue ?? '0'}::numeric)
      ON CONFLICT (customer_id, window_start) DO UPDATE SET
        placed = customer_windows.placed + EXCLUDED.placed,
        confirmed = customer_windows.confirmed + EXCLUDED.confirmed,
        cancelled = customer_windows.cancelled + EXCLUDED.cancelled,
        revenue = customer_windows.revenue + EXCLUDED.revenue,
        updated_at = now()
      RETURNING placed, confirmed, cancelled, revenue::text AS revenue`;
    const counts = rows[0];
    if (!counts)
      throw new Error(`upsert of window ${customerId}/${window.start.toISOString()} returned nothing`);
    return counts;
  }
}
