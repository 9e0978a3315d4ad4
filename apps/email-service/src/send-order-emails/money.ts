/**
 * Exact money arithmetic for the email body: amounts are decimal strings with at most 2 places
 * (the contracts' MoneySchema), handled as integer cents in a bigint, never as binary floats.
 */
export function toCents(amount: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match) throw new RangeError(`not a money amount: "${amount}"`);
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

export function formatCents(cents: bigint): string {
  const whole = cents / 100n;
  const fraction = (cents % 100n).toString().padStart(2, '0');
  return `${whole}.${fraction}`;
}

/** `quantity × unitPrice`, exactly. */
export const lineTotal = (quantity: number, unitPrice: string): string =>
  formatCents(BigInt(quantity) * toCents(unitPrice));

/** `"28"` → `"28.00"`: every amount in the email has two places. */
export const formatMoney = (amount: string): string => formatCents(toCents(amount));
