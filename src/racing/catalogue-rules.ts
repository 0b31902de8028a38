// The race catalogue's value rules: the products a race offers, the multi-race pools of a meeting,
// fixed-odds prices and scratching deductions. Prices and deductions are exact decimals with at
// most two places, read from JSON numbers through their shortest round-trip text (money.ts) or
// from decimal text, and returned as text for NUMERIC columns — never float arithmetic.
import { formatDecimal, numberToDecimal, parseDecimal } from './money.ts';

/** Products offered per race. A multi is not a race product: its legs need races offering win. */
export const RACE_PRODUCTS = ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'] as const;
export type RaceProduct = (typeof RACE_PRODUCTS)[number];

/** Multi-race pools of a meeting and how many consecutive-or-not races each spans. */
export const POOL_PRODUCTS = { quaddie: 4, dailydouble: 2 } as const;
export type PoolProduct = keyof typeof POOL_PRODUCTS;

/** What a new race offers when its products are not given. */
export const DEFAULT_PRODUCTS: readonly RaceProduct[] = ['win', 'place'];

/** Runner numbers (saddle cloth / box) within a race. */
export const MAX_RUNNER_NUMBER = 99;

/** Fixed-odds price bounds, in cents of a $1 unit: $1.01 (the smallest return above the stake) to $10,000. */
export const MIN_PRICE_CENTS = 101n;
export const MAX_PRICE_CENTS = 1_000_000n;
const PRICE_PLACES = 2;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A JSON number or a plain decimal string, as a count of hundredths; undefined when neither. */
function hundredths(value: unknown): bigint | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    const { text, sentPlaces } = numberToDecimal(value, PRICE_PLACES);
    return sentPlaces > PRICE_PLACES ? undefined : parseDecimal(text, PRICE_PLACES);
  }
  if (typeof value === 'string') return parseDecimal(value.trim(), PRICE_PLACES);
  return undefined;
}

/** A fixed-odds price: 1.01 to 10000, at most 2 decimals. Returned as "3.50". */
export function parsePrice(value: unknown): Parsed<string> {
  const units = hundredths(value);
  if (units === undefined || units < MIN_PRICE_CENTS || units > MAX_PRICE_CENTS) {
    return { ok: false, message: 'must be a price from 1.01 to 10000 with at most 2 decimals' };
  }
  return { ok: true, value: formatDecimal(units, PRICE_PLACES, 'fixed') };
}

/** A late-scratching deduction in percent: 0 to 99.99, at most 2 decimals. Returned as "15.00". */
export function parseDeduction(value: unknown): Parsed<string> {
  const units = hundredths(value);
  if (units === undefined || units < 0n || units >= 10_000n) {
    return { ok: false, message: 'must be a percentage from 0 to 99.99 with at most 2 decimals' };
  }
  return { ok: true, value: formatDecimal(units, PRICE_PLACES, 'fixed') };
}

/** A race's product list: known names, no repeats; lower-cased. */
export function parseProducts(value: unknown): Parsed<RaceProduct[]> {
  if (!Array.isArray(value) || value.length === 0) return { ok: false, message: `must be a non-empty array of ${RACE_PRODUCTS.join(', ')}` };
  const out: RaceProduct[] = [];
  for (const item of value) {
    const name = typeof item === 'string' ? item.trim().toLowerCase() : '';
    if (name === 'multi') return { ok: false, message: 'multi is not a race product: a multi may take any race offering win' };
    if (name in POOL_PRODUCTS) return { ok: false, message: `${name} is a pool of the meeting: list it in the meeting's pools` };
    if (!(RACE_PRODUCTS as readonly string[]).includes(name)) return { ok: false, message: `"${String(item)}" is not one of ${RACE_PRODUCTS.join(', ')}` };
    if (out.includes(name as RaceProduct)) return { ok: false, message: `${name} is listed twice` };
    out.push(name as RaceProduct);
  }
  return { ok: true, value: out };
}

/**
 * The races of a multi-race pool: exactly the pool's count of distinct race numbers in ascending
 * order, each a race of the meeting (`known`).
 */
export function checkPoolRaces(product: PoolProduct, races: unknown, known: ReadonlySet<number>): string | undefined {
  const count = POOL_PRODUCTS[product];
  if (!Array.isArray(races) || races.length !== count || !races.every((r) => Number.isSafeInteger(r) && r >= 1)) {
    return `a ${product} spans exactly ${count} race numbers`;
  }
  const numbers = races as number[];
  if (numbers.some((r, i) => i > 0 && r <= numbers[i - 1]!)) return `the races of a ${product} must be distinct and ascending`;
  const missing = numbers.filter((r) => !known.has(r));
  if (missing.length) return `race${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of the ${product} ${missing.length > 1 ? 'are' : 'is'} not a race of the meeting`;
  return undefined;
}

/** Whether a race offering `products` can be a leg of a multi. */
export function takesMulti(products: readonly string[]): boolean {
  return products.includes('win');
}
