import { AdaptiveLinger, isUnavailable } from '@pipeline/messaging';
import type { PendingOrder, PlaceOrderResult } from './pending-order';

export interface OrderGroupCommitOptions {
  /**
   * The longest a group collects orders, from its first one. The first order after a quiet spell
   * is written at once (with what arrives in the same event-loop turn); while orders keep coming
   * the window doubles up to this (AdaptiveLinger). 0: never wait.
   */
  readonly windowMs: number;
  /** A group is written at once when it has this many orders. */
  readonly maxOrders: number;
}

/** Writes orders in one transaction; one result per order, in order. Rejects if it rolled back. */
export type WriteOrderGroup = (orders: readonly PendingOrder[]) => Promise<readonly PlaceOrderResult[]>;

interface Waiting {
  readonly order: PendingOrder;
  resolve(result: PlaceOrderResult): void;
  reject(error: unknown): void;
}

class Group {
  readonly waiting: Waiting[] = [];
  readonly keys = new Set<string>();
  cancelTimer: (() => void) | undefined;
  /** Settles (never rejects) when every order of the group has its answer. */
  readonly settled: Promise<void>;
  markSettled!: () => void;

  constructor() {
    this.settled = new Promise((resolve) => (this.markSettled = resolve));
  }
}

/**
 * Group commit for POST /orders: concurrent requests share one transaction, so the database
 * does one set of statements and one COMMIT per group instead of per order. Each request is
 * answered only after its group committed.
 *
 * - A group that fails is written again one order at a time, so one bad order never fails the
 *   others. Not when the database is unavailable: each alone would fail the same way, later.
 * - Two requests with the same Idempotency-Key never share a group: the second joins a group
 *   formed after the first one's committed, where it sees the first one's key and result, as
 *   if it had come later. Across groups in flight together the database serialises them (the
 *   second waits on the first's key row).
 */
export class OrderGroupCommit {
  private forming = new Group();
  private readonly window: AdaptiveLinger;
  private closedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly write: WriteOrderGroup,
    private readonly options: OrderGroupCommitOptions,
  ) {
    // An order that comes a whole window after the last group closed finds a quiet service.
    this.window = new AdaptiveLinger(options.windowMs);
  }

  place(order: PendingOrder): Promise<PlaceOrderResult> {
    const key = order.idempotency?.key;
    if (key !== undefined && this.forming.keys.has(key)) {
      return this.forming.settled.then(() => this.place(order));
    }
    return new Promise<PlaceOrderResult>((resolve, reject) => {
      const group = this.forming;
      group.waiting.push({ order, resolve, reject });
      if (key !== undefined) group.keys.add(key);
      if (group.waiting.length >= this.options.maxOrders) this.close(group);
      else if (group.cancelTimer === undefined) group.cancelTimer = this.startWindow(group);
    });
  }

  private startWindow(group: Group): () => void {
    const windowMs = this.window.next(performance.now() - this.closedAt);
    if (windowMs === 0) {
      const immediate = setImmediate(() => this.close(group));
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(() => this.close(group), windowMs);
    return () => clearTimeout(timer);
  }

  private close(group: Group): void {
    if (group !== this.forming) return;
    group.cancelTimer?.();
    this.closedAt = performance.now();
    this.forming = new Group();
    void this.commit(group.waiting).finally(group.markSettled);
  }

  private async commit(waiting: readonly Waiting[]): Promise<void> {
    let results: readonly PlaceOrderResult[];
    try {
      results = await this.write(waiting.map((entry) => entry.order));
    } catch (error) {
      if (waiting.length === 1 || isUnavailable(error)) {
        for (const entry of waiting) entry.reject(error);
        return;
      }
      for (const entry of waiting) await this.commit([entry]);
      return;
    }
    // Committed: a miscount is a bug, and writing the orders again would duplicate them.
    const miscount =
      results.length === waiting.length
        ? undefined
        : new Error(`${results.length} results for a group of ${waiting.length} orders`);
    waiting.forEach((entry, index) =>
      miscount === undefined ? entry.resolve(results[index]!) : entry.reject(miscount),
    );
  }
}
