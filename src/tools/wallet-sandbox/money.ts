// Money at the sandbox's edges. Inside, every amount is an integer number of cents (exact up to
// 2^53); wire amounts are parsed from their decimal text, never by float arithmetic.

/** Largest amount accepted: 10^13 cents (100 billion dollars), far inside the exact integer range. */
export const MAX_CENTS = 10 ** 13;

/** A JSON number in dollars ("12.5", "12.50") or in integer cents → cents; undefined when not exact. */
export function wireToCents(value: unknown, unit: 'dollars' | 'cents'): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  // String(n) is the shortest text that round-trips: 0.1 + 0.2 gives "0.30000000000000004" and is refused.
  const text = String(value);
  if (unit === 'cents') return /^\d+$/.test(text) && value <= MAX_CENTS ? value : undefined;
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return cents <= MAX_CENTS ? cents : undefined;
}

/** A decimal dollar string ("1000", "12.5", "0.01") → cents; throws on anything else. */
export function dollarsToCents(text: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not an amount in dollars with at most two decimals`);
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (cents > MAX_CENTS) throw new Error(`"${text}" is too large`);
  return cents;
}

/** Cents → "12.34" (negative balances, possible only in a break mode, keep their sign). */
export function centsToDollars(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Cents → the wire unit (a JSON number), for request bodies built by tools. */
export function centsToWire(cents: number, unit: 'dollars' | 'cents'): number {
  return unit === 'cents' ? cents : Number(centsToDollars(cents));
}
