import { StockChangedEvent, Topics, type StockChangedPayload, type OutgoingEvent } from '@pipeline/contracts';

/** A row of `stock` as raw SQL returns it. */
export interface StockRow {
  readonly sku: string;
  readonly available: number;
  readonly reserved: number;
  /** The pg driver gives a Date; normalised here so callers never care. */
  readonly updated_at: Date | string;
}

/** What `GET /inventory/:sku` answers and what `inventory.stock` carries per SKU. */
export type StockLevel = StockChangedPayload;

/** The columns every query that feeds {@link toStockLevel} selects. */
export const STOCK_COLUMNS = 'sku, available, reserved, updated_at';

export function toStockLevel(row: StockRow): StockLevel {
  return {
    sku: row.sku,
    available: row.available,
    reserved: row.reserved,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** A change record for the compacted changelog: key = SKU, so the latest record is the state. */
export function stockChanged(level: StockLevel): Omit<OutgoingEvent<StockLevel>, 'correlationId'> {
  return { topic: Topics.inventoryStock, key: level.sku, type: StockChangedEvent.type, payload: level };
}

/** A deleted SKU: a null value under its key, which compaction eventually removes altogether. */
export function stockTombstone(sku: string): Omit<OutgoingEvent<null>, 'correlationId'> {
  return { topic: Topics.inventoryStock, key: sku, type: StockChangedEvent.type, payload: null };
}
