import { isUnavailable } from '@pipeline/messaging';
import type { PendingOrder, PlaceOrderResult } from './pending-order';

export interface OrderGroupCommitOptions {
  /** The most orders one group holds; what comes after a full group forms the next one. */
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
 * No timer decides when a group closes: one group is in flight at a time, and the orders that
 * arrive meanwhile form the next one, written the moment the one in flight settles. An order that
 * finds nothing in flight is written at once, with what arrives in the same event-loop turn. So a
 * quiet service writes each order alone, and a busy one writes bigger groups, as big as its
 * database is slow (up to `maxOrders`: a full group waits its turn, and the next one forms).
 *
 * - A group that fails is written again one order at a time, so one bad order never fails the
 *   others. Not when the database is unavailable: each alone would fail the same way, later.
 * - Two requests with the same Idempotency-Key never share a group: the second joins a group
 *   formed after the first one's committed, where it sees the first one's key and result, as
 *   if it had come later.
 */
export class OrderGroupCommit {
  private forming = new Group();
  /** Full groups waiting for the one in flight, oldest first. */
  private readonly full: Group[] = [];
  private inFlight = false;
  private turnEnd: NodeJS.Immediate | undefined;

  constructor(
    private readonly write: WriteOrderGroup,
    private readonly options: OrderGroupCommitOptions,
  ) {}

  place(order: PendingOrder): Promise<PlaceOrderResult> {
    const key = order.idempotency?.key;
    if (key !== undefined && this.forming.keys.has(key)) {
      return this.forming.settled.then(() => this.place(order));
    }
    return new Promise<PlaceOrderResult>((resolve, reject) => {
      const group = this.forming;
      group.waiting.push({ order, resolve, reject });
      if (key !== undefined) group.keys.add(key);
      if (group.waiting.length >= this.options.maxOrders) {
        this.full.push(group);
        this.forming = new Group();
        this.next();
      } else if (!this.inFlight) {
        // Idle: written at the end of this event-loop turn, with what else it brings.
        this.turnEnd ??= setImmediate(() => {
          this.turnEnd = undefined;
          this.next();
        });
      }
    });
  }

  /** Starts the next group unless one is in flight: a full one first, else the one forming. */
  private next(): void {
    if (this.inFlight) return;
    let group = this.full.shift();
    if (group === undefined && this.forming.waiting.length > 0) {
      group = this.forming;
      this.forming = new Group();
    }
    if (group === undefined) return;
    this.inFlight = true;
    const settled = group.markSettled;
    void this.commit(group.waiting).finally(() => {
      this.inFlight = false;
      settled();
      this.next();
    });
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
