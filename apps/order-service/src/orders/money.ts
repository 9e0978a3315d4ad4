/**
 * Exact money arithmetic on decimal strings with at most 2 places, through integer cents in
 * BigInt: a JS number is binary floating point (0.1 + 0.2 !== 0.3), so it never holds money.
 */

/** The largest amount a NUMERIC(12,2) column holds, in cents. */
export const MAX_CENTS = 999_999_999_999n;
export const MAX_AMOUNT = '9999999999.99';

const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/;

/** "12" → 1200n, "12.5" → 1250n, "12.50" → 1250n. */
export function toCents(amount: string): bigint {
  const match = AMOUNT.exec(amount);
  if (!match) throw new RangeError(`not a decimal amount with at most 2 places: "${amount}"`);
  const [, units = '0', fraction = ''] = match;
  return BigInt(units) * 100n + BigInt(fraction.padEnd(2, '0'));
}

/** 1250n → "12.50": always exactly 2 places, the form every amount is stored and sent in. */
export function formatCents(cents: bigint): string {
  if (cents < 0n) throw new RangeError(`negative amount: ${cents} cents`);
  const digits = cents.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

export const normaliseAmount = (amount: string): string => formatCents(toCents(amount));

export interface PricedLine {
  readonly quantity: number;
  readonly unitPrice: string;
}

/** Σ quantity × unitPrice, exactly. */
export function orderTotal(lines: readonly PricedLine[]): string {
  return formatCents(lines.reduce((sum, line) => sum + BigInt(line.quantity) * toCents(line.unitPrice), 0n));
}

export const fitsMoneyColumn = (amount: string): boolean => toCents(amount) <= MAX_CENTS;
