import { toCents } from '@pipeline/contracts';

/** The largest amount a NUMERIC(12,2) column holds, in cents. */
export const MAX_CENTS = 999_999_999_999n;
export const MAX_AMOUNT = '9999999999.99';

export const fitsMoneyColumn = (amount: string): boolean => toCents(amount) <= MAX_CENTS;
