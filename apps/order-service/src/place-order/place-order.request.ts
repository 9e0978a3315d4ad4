import { z } from 'zod';
import {
  CURRENCY_PATTERN,
  CustomerEmailSchema,
  CustomerIdSchema,
  normaliseAmount,
  orderTotal,
  POSITIVE_MONEY_PATTERN,
  QuantitySchema,
  SkuSchema,
} from '@pipeline/contracts';
import { MAX_AMOUNT, fitsMoneyColumn } from '../orders/money-column';

/**
 * A unit price as a client may send it: a decimal string ("12.5") or a JSON number (12.5), positive,
 * at most 2 places, at most MAX_AMOUNT (a NUMERIC(12,2) column). A number is read through its
 * shortest decimal form, so 0.1 stays "0.1" and 1.005 or 0.30000000000000004 are refused rather
 * than rounded. Normalised to a 2-place string ("12.50").
 */
export const UnitPriceSchema = z
  .union([z.string(), z.number()], { error: 'expected a positive decimal string or number, e.g. "12.50"' })
  .transform((value) => (typeof value === 'number' ? String(value) : value))
  .pipe(
    z
      .string()
      .regex(POSITIVE_MONEY_PATTERN, {
        error: 'expected a positive decimal with at most 2 places, e.g. "12.50"',
        abort: true,
      })
      .refine(fitsMoneyColumn, { error: `must be at most ${MAX_AMOUNT}` })
      .transform(normaliseAmount),
  );

const PlaceOrderItemSchema = z.strictObject({
  sku: SkuSchema,
  quantity: QuantitySchema,
  unitPrice: UnitPriceSchema,
});

/** POST /orders body. Unknown fields are refused; the output is normalised (see UnitPriceSchema). */
export const PlaceOrderRequestSchema = z
  .strictObject({
    customerId: CustomerIdSchema,
    customerEmail: CustomerEmailSchema,
    items: z.array(PlaceOrderItemSchema).min(1).max(100),
    currency: z
      .string()
      .regex(CURRENCY_PATTERN, { error: 'expected 3 upper-case letters (ISO 4217), e.g. "EUR"' })
      .default('EUR'),
  })
  .refine((order) => fitsMoneyColumn(orderTotal(order.items)), {
    error: `the order total must be at most ${MAX_AMOUNT}`,
    path: ['items'],
    // Only a valid order has a total: zod runs object refinements even after field issues.
    when: (payload) => payload.issues.length === 0,
  });

export type PlaceOrderRequest = z.output<typeof PlaceOrderRequestSchema>;

/** `Idempotency-Key` header: optional, 1 to 200 printable ASCII characters. */
export const IdempotencyHeaderSchema = z.strictObject({
  'Idempotency-Key': z
    .string({ error: 'expected the header once, with 1 to 200 printable ASCII characters' })
    .regex(/^[\x20-\x7e]{1,200}$/, { error: 'expected 1 to 200 printable ASCII characters' })
    .optional(),
});
