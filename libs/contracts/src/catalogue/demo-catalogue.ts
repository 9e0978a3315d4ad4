/**
 * The demo catalogue inventory-service seeds on first start (the README walk-through uses it):
 *
 * | SKU                                                  | available |
 * | ---------------------------------------------------- | --------- |
 * | SKU-APPLE, SKU-BANANA, SKU-CHERRY, SKU-DATE,         | 1,000,000 |
 * | SKU-ELDERBERRY, SKU-FIG, SKU-GRAPE, SKU-HONEYDEW,    | each      |
 * | SKU-KIWI, SKU-LEMON, SKU-MANGO, SKU-NECTARINE        |           |
 * | SKU-RARE                                             | 0         |
 *
 * A million units each so load tests do not run dry; SKU-RARE is always out of stock, for the
 * out-of-stock (cancel and refund) path. Restock with `PUT /inventory/SKU-RARE {"available": 5}`.
 * Defined here, once, because the service seeds it and the load generator orders from it.
 */
export const DEMO_STOCK_UNITS = 1_000_000;

export const DEMO_STOCKED_SKUS = [
  'SKU-APPLE',
  'SKU-BANANA',
  'SKU-CHERRY',
  'SKU-DATE',
  'SKU-ELDERBERRY',
  'SKU-FIG',
  'SKU-GRAPE',
  'SKU-HONEYDEW',
  'SKU-KIWI',
  'SKU-LEMON',
  'SKU-MANGO',
  'SKU-NECTARINE',
] as const;

export const DEMO_OUT_OF_STOCK_SKU = 'SKU-RARE';

export const DEMO_CATALOGUE: readonly { readonly sku: string; readonly available: number }[] = [
  ...DEMO_STOCKED_SKUS.map((sku) => ({ sku, available: DEMO_STOCK_UNITS })),
  { sku: DEMO_OUT_OF_STOCK_SKU, available: 0 },
];
