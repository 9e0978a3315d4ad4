/**
 * Exact arithmetic on the contracts' money: decimal strings with at most 2 places, handled as
 * integer cents in a bigint. A JS number is binary floating point (0.1 + 0.2 !== 0.3), so it never
 * holds money anywhere in the pipeline.
 */
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

/** "7" → "7.00". */
export const normaliseAmount = (amount: string): string => formatCents(toCents(amount));

/** quantity × unitPrice, exactly. */
export const lineTotal = (quantity: number, unitPrice: string): string =>
  formatCents(BigInt(quantity) * toCents(unitPrice));

export interface PricedLine {
  readonly quantity: number;
  readonly unitPrice: string;
}

/** Σ quantity × unitPrice, exactly. */
export function orderTotal(lines: readonly PricedLine[]): string {
  return formatCents(lines.reduce((sum, line) => sum + BigInt(line.quantity) * toCents(line.unitPrice), 0n));
}
