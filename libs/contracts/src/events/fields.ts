import { z } from 'zod';

/**
 * Field schemas shared by the event payloads. Money is always a decimal string (never a JS
 * number, which is binary floating point): at most 2 places, no sign, no leading zeros.
 */
export const MONEY_PATTERN = /^(0|[1-9]\d*)(\.\d{1,2})?$/;

/** {@link MONEY_PATTERN} without zero: `0`, `0.0`, `0.00` are rejected. */
export const POSITIVE_MONEY_PATTERN = /^([1-9]\d*(\.\d{1,2})?|0\.([1-9]\d?|0[1-9]))$/;

/** ISO 4217 alphabetic code, upper case. */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

export const MoneySchema = z
  .string()
  .regex(MONEY_PATTERN, {
    error: 'Invalid amount: expected a decimal string with at most 2 places, e.g. "12.50"',
  })
  .describe('Exact decimal amount as a string with at most 2 places, e.g. "12.50" (never a JSON number).');

export const PositiveMoneySchema = z
  .string()
  .regex(POSITIVE_MONEY_PATTERN, {
    error: 'Invalid amount: expected a positive decimal string with at most 2 places, e.g. "12.50"',
  })
  .describe('Exact positive decimal amount as a string with at most 2 places, e.g. "12.50".');

export const CurrencySchema = z
  .string()
  .regex(CURRENCY_PATTERN, { error: 'Invalid currency: expected a 3-letter ISO 4217 code, e.g. "EUR"' })
  .describe('ISO 4217 currency code, e.g. "EUR".');

/** ISO-8601 date-time in UTC (`Z`), any fractional precision: what `Date#toISOString()` writes. */
export const TimestampSchema = z.iso
  .datetime()
  .describe('ISO-8601 date-time in UTC, e.g. "2025-01-31T12:00:00.000Z".');

export const UuidSchema = z.uuid();
export const OrderIdSchema = UuidSchema.describe('The order id (UUID).');
export const PaymentIdSchema = UuidSchema.describe('The payment id (UUID).');

/** NUL, or a UTF-16 surrogate without its pair: JSON can carry them, a Postgres `text` cannot. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (value: string) => !UNSTORABLE.test(value);
const STORABLE_ERROR = 'must not contain NUL or unpaired surrogate characters';

export const CustomerIdSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(storable, { error: STORABLE_ERROR })
  .describe('The customer id, 1 to 64 characters.');
export const CustomerEmailSchema = z.email().describe('Where the order emails go.');

export const SkuSchema = z
  .string()
  .min(1)
  .refine(storable, { error: STORABLE_ERROR })
  .describe('Stock keeping unit.');
export const QuantitySchema = z.int().min(1).max(1000).describe('Units, an integer from 1 to 1000.');

/** A non-negative integer count (stock levels, window counts). */
export const CountSchema = z.int().min(0);

export const OrderItemSchema = z.strictObject({
  sku: SkuSchema,
  quantity: QuantitySchema,
  unitPrice: PositiveMoneySchema,
});
export type OrderItem = z.infer<typeof OrderItemSchema>;

/** An order's lines: 1 to 100 items. */
export const OrderItemsSchema = z.array(OrderItemSchema).min(1).max(100);

/** A line of a stock reservation: no price, inventory counts units only. */
export const StockItemSchema = z.strictObject({
  sku: SkuSchema,
  quantity: QuantitySchema,
});
export type StockItem = z.infer<typeof StockItemSchema>;

export const StockItemsSchema = z.array(StockItemSchema).min(1).max(100);
