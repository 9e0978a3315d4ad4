import { Topics } from '@pipeline/contracts';
import type { FeedEvent } from './order-store';

export interface OrderFlowInterval {
  readonly placed: number;
  readonly terminal: number;
  /** order.placed to order.confirmed/cancelled, by their event times, ascending. */
  readonly e2eMs: number[];
}

/** Bounds the durations kept between two samples (20 s of 1,000 orders/s at 5 s). */
const MAX_DURATIONS = 20_000;

/**
 * Counts, between two samples, the orders the console's consumer saw placed and finished, and
 * times each finished one. Events older than `sinceMs` (the history the feed re-reads at start-up)
 * are not counted: they would show as one burst at the first sample.
 */
export class OrderFlowCounter {
  private placed = 0;
  private terminal = 0;
  private e2eMs: number[] = [];

  constructor(private readonly sinceMs: number) {}

  /** Called once per new event, with the order's order.placed time when known. */
  record(event: FeedEvent, placedAt: string | undefined): void {
    if (event.topic !== Topics.orders) return;
    const type = event.type;
    if (type === 'order.placed') {
      if (Date.parse(event.time) >= this.sinceMs) this.placed += 1;
    } else if (type === 'order.confirmed' || type === 'order.cancelled') {
      const finished = Date.parse(event.time);
      if (finished < this.sinceMs) return;
      this.terminal += 1;
      if (placedAt !== undefined && this.e2eMs.length < MAX_DURATIONS)
        this.e2eMs.push(Math.max(0, finished - Date.parse(placedAt)));
    }
  }

  /** What happened since the previous call; starts the next interval. */
  take(): OrderFlowInterval {
    const interval = {
      placed: this.placed,
      terminal: this.terminal,
      e2eMs: this.e2eMs.sort((a, b) => a - b),
    };
    this.placed = 0;
    this.terminal = 0;
    this.e2eMs = [];
    return interval;
  }
}
