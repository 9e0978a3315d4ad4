/** Units of one SKU an order asks for. */
export interface StockLine {
  readonly sku: string;
  readonly quantity: number;
}

export type ReservationPlan =
  | { readonly status: 'RESERVED'; readonly lines: readonly StockLine[] }
  | { readonly status: 'REJECTED'; readonly missingSkus: readonly string[] };

/**
 * One line per SKU, quantities summed, sorted by SKU (code-point order). An order may list a SKU
 * twice; checking each line alone against the same stock would reserve more than is there.
 */
export function mergeLines(lines: readonly StockLine[]): StockLine[] {
  const totals = new Map<string, number>();
  for (const { sku, quantity } of lines) totals.set(sku, (totals.get(sku) ?? 0) + quantity);
  return [...totals]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([sku, quantity]) => ({ sku, quantity }));
}

/**
 * All or none: the order is reserved only when every SKU has enough available units. A SKU the
 * inventory does not know counts as out of stock. `lines` must come from {@link mergeLines} (one
 * line per SKU, sorted); `available` must hold the locked rows' values.
 */
export function planReservation(
  lines: readonly StockLine[],
  available: ReadonlyMap<string, number>,
): ReservationPlan {
  const missingSkus = lines
    .filter(({ sku, quantity }) => (available.get(sku) ?? 0) < quantity)
    .map(({ sku }) => sku);
  return missingSkus.length > 0 ? { status: 'REJECTED', missingSkus } : { status: 'RESERVED', lines };
}
