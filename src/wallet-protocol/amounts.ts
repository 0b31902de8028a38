// Wallet amounts (the wallet interface leaves their unit open). Amounts travel through the code as
// decimal strings of dollars with two decimals, are stored as NUMERIC(16,2), and are written on the
// wire either as dollars with exactly two decimals (12.50) or as integer cents (1250), per tenant.
// The arithmetic is racing/money.ts's; this file adds the wallet's rules and messages.
import { AppError } from '../errors.ts';
import { centsOnWire, centsToDollars, parseDollars, type AmountUnit } from '../racing/money.ts';

export { AMOUNT_UNITS, type AmountUnit } from '../racing/money.ts';

/** At most 14 whole digits of dollars, as NUMERIC(16,2) stores them (leading zeros counted, as always). */
const DOLLARS = /^\d{1,14}(?:\.\d{1,2})?$/;

/** "12.5" → "12.50"; refuses negatives, more than two decimals, exponents and floats. */
export function normalizeAmount(amount: string | bigint, where = 'amount'): string {
  if (typeof amount === 'bigint') {
    if (amount < 0n) throw new AppError('bad_request', `${where} must not be negative`);
    return centsToDollars(amount);
  }
  const cents = typeof amount === 'string' && DOLLARS.test(amount.trim()) ? parseDollars(amount) : undefined;
  if (cents === undefined) {
    throw new AppError('bad_request', `${where} must be a decimal string of dollars with at most two decimals (e.g. "12.50"), got ${JSON.stringify(amount)}`);
  }
  return centsToDollars(cents);
}

export function dollarsToCents(dollars: string): bigint {
  return parseDollars(normalizeAmount(dollars))!;
}

export { centsToDollars };

/** The JSON number text of an amount in the tenant's unit: "12.50" or "1250". */
export function amountOnWire(dollars: string, unit: AmountUnit): string {
  return centsOnWire(dollarsToCents(dollars), unit);
}
