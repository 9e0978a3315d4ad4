/** A non-negative decimal amount with at most 2 places, as the contracts write money. */
const AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Exact integer cents of a decimal money string: "10000.01" → 1000001n. Money never goes
 * through a JS number (binary floating point), so comparisons at the limit are exact.
 */
export function toCents(amount: string): bigint {
  const match = AMOUNT.exec(amount);
  if (!match) throw new TypeError(`"${amount}" is not a decimal amount with at most 2 places`);
  const [, units = '0', fraction = ''] = match;
  return BigInt(units) * 100n + BigInt(fraction.padEnd(2, '0'));
}
