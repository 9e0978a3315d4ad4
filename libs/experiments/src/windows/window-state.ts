import {
  foldOrderCounts,
  partitionKey,
  windowKey,
  type Fold,
  type OrderCount,
  type WindowCounts,
} from '@pipeline/contracts';

const NO_COUNTS: WindowCounts = { placed: 0, confirmed: 0, cancelled: 0, revenue: '0.00' };

/**
 * The rows analytics-service keeps (a watermark per partition, counts per customer and window),
 * in memory: each batch is folded with the service's own `foldOrderCounts` from the state the
 * batches before it left, exactly as the service folds from the rows it locked.
 */
export class WindowState {
  private readonly watermarks = new Map<string, Date>();
  private readonly windows = new Map<string, WindowCounts>();
  private readonly starts = new Map<string, { customerId: string; start: Date; end: Date }>();

  constructor(private readonly graceMs: number) {}

  apply<Ref>(events: readonly OrderCount<Ref>[]): Fold<Ref> {
    const fold = foldOrderCounts(events, {
      watermarks: this.watermarks,
      windows: this.windows,
      graceMs: this.graceMs,
    });
    for (const { customerId, window, counts } of fold.windows) {
      const key = windowKey(customerId, window.start);
      this.windows.set(key, counts);
      this.starts.set(key, { customerId, start: window.start, end: window.end });
    }
    for (const { topic, partition, maxEventTime } of fold.watermarks)
      this.watermarks.set(partitionKey(topic, partition), maxEventTime);
    return fold;
  }

  /** Every window with its counts, by window start, then customer. */
  rows(): { customerId: string; start: Date; end: Date; counts: WindowCounts }[] {
    return [...this.starts]
      .map(([key, where]) => ({ ...where, counts: this.windows.get(key) ?? NO_COUNTS }))
      .sort((a, b) => a.start.getTime() - b.start.getTime() || a.customerId.localeCompare(b.customerId));
  }

  placed(customerId: string, start: Date): number {
    return this.windows.get(windowKey(customerId, start))?.placed ?? 0;
  }
}
