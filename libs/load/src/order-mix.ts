/** Which outcome each generated order aims for, and the request body that produces it (README: demo catalogue). */
import { DEMO_OUT_OF_STOCK_SKU, DEMO_STOCKED_SKUS } from '@pipeline/contracts';

export const Outcomes = ['confirmed', 'declined', 'out-of-stock'] as const;
export type Outcome = (typeof Outcomes)[number];
export type OutcomeMix = Readonly<Record<Outcome, number>>;

export interface OrderItem {
  readonly sku: string;
  readonly quantity: number;
  readonly unitPrice: string;
}
export interface OrderRequest {
  readonly customerId: string;
  readonly customerEmail: string;
  readonly items: readonly OrderItem[];
}
export interface PlannedOrder {
  readonly outcome: Outcome;
  readonly body: OrderRequest;
}

/** mulberry32: small, fast, and reproducible from a 32-bit seed. Returns [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pickOutcome(mix: OutcomeMix, random: () => number): Outcome {
  const total = Outcomes.reduce((sum, outcome) => sum + mix[outcome], 0);
  let point = random() * total;
  for (const outcome of Outcomes) {
    point -= mix[outcome];
    if (point < 0) return outcome;
  }
  return Outcomes.findLast((outcome) => mix[outcome] > 0) ?? 'confirmed';
}

const pick = <T>(values: readonly T[], random: () => number): T =>
  values[Math.floor(random() * values.length)] as T;

const price = (random: () => number): string => (1 + Math.floor(random() * 9900) / 100).toFixed(2);

/** Builds one order; `sequence` makes every email address unique so emails can be counted per order. */
export function planOrder(
  outcome: Outcome,
  options: { readonly customers: number; readonly sequence: number; readonly runId: string },
  random: () => number,
): PlannedOrder {
  const customer = `c${Math.floor(random() * options.customers)}`;
  const customerId = outcome === 'declined' ? `blocked-${customer}` : `loadgen-${customer}`;
  const lines = 1 + Math.floor(random() * 3);
  const items: OrderItem[] = [];
  for (let i = 0; i < lines; i++) {
    items.push({
      sku: pick(DEMO_STOCKED_SKUS, random),
      quantity: 1 + Math.floor(random() * 3),
      unitPrice: price(random),
    });
  }
  if (outcome === 'out-of-stock')
    items.push({ sku: DEMO_OUT_OF_STOCK_SKU, quantity: 1, unitPrice: price(random) });
  const customerEmail = `${options.runId}-${options.sequence}@loadgen.test`;
  return { outcome, body: { customerId, customerEmail, items } };
}
