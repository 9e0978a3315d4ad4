import { mergeLines, planReservation, type ReservationPlan, type StockLine } from './reserve-stock.policy';

/** An order of the batch as the planner needs it. */
export interface OrderToReserve {
  /** Canonical (lower-case) order id: two spellings of one UUID are one order. */
  readonly orderId: string;
  /** The order's own lines, a SKU possibly on several. */
  readonly items: readonly StockLine[];
}

/** A SKU's counts: as locked, or as they stand after an order of the batch. */
export interface StockCounts {
  readonly available: number;
  readonly reserved: number;
}

export interface StockLevelAfter extends StockCounts {
  readonly sku: string;
}

/** What becomes of one order to claim. */
export interface PlannedOrder<Order extends OrderToReserve> {
  readonly order: Order;
  /** {@link mergeLines} of the order's items: what its reservation row records. */
  readonly lines: readonly StockLine[];
  readonly plan: ReservationPlan;
  /** RESERVED only: each of its SKUs' counts right after this order, in `lines` order. */
  readonly levels: readonly StockLevelAfter[];
}

export interface BatchPlan<Order extends OrderToReserve> {
  /** One per order to claim, in list order; already claimed orders and repeats are left out. */
  readonly orders: readonly PlannedOrder<Order>[];
  /** Units the batch reserves per SKU (sorted by SKU), for one stock update. */
  readonly moves: readonly StockLine[];
  /** Each moved SKU's counts after the whole batch: what the stock update must return. */
  readonly final: ReadonlyMap<string, StockCounts>;
}

/**
 * Plans a batch of orders as if they were reserved one by one in list order: each order is all or
 * none ({@link planReservation}) against what the orders before it left, so two orders competing
 * for the last units go to the first. An order in `claimed`, or one already planned earlier in the
 * list (the same order re-published), is skipped: one claim per order. `stock` holds the locked
 * rows; a SKU missing from it is unknown, hence out of stock.
 */
export function planBatch<Order extends OrderToReserve>(
  orders: readonly Order[],
  claimed: ReadonlySet<string>,
  stock: ReadonlyMap<string, StockCounts>,
): BatchPlan<Order> {
  const available = new Map([...stock].map(([sku, counts]) => [sku, counts.available]));
  const reserved = new Map([...stock].map(([sku, counts]) => [sku, counts.reserved]));
  const moved = new Map<string, number>();
  const seen = new Set(claimed);
  const planned: PlannedOrder<Order>[] = [];
  for (const order of orders) {
    if (seen.has(order.orderId)) continue;
    seen.add(order.orderId);
    const lines = mergeLines(order.items);
    const plan = planReservation(lines, available);
    const levels: StockLevelAfter[] = [];
    if (plan.status === 'RESERVED') {
      for (const { sku, quantity } of plan.lines) {
        // Known SKUs only: planReservation reserves nothing it has no count for.
        const after = {
          sku,
          available: available.get(sku)! - quantity,
          reserved: reserved.get(sku)! + quantity,
        };
        available.set(sku, after.available);
        reserved.set(sku, after.reserved);
        moved.set(sku, (moved.get(sku) ?? 0) + quantity);
        levels.push(after);
      }
    }
    planned.push({ order, lines, plan, levels });
  }
  const moves = mergeLines([...moved].map(([sku, quantity]) => ({ sku, quantity })));
  const final = new Map(
    moves.map(({ sku }) => [sku, { available: available.get(sku)!, reserved: reserved.get(sku)! }]),
  );
  return { orders: planned, moves, final };
}
