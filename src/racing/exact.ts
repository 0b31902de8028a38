// Exact rational numbers for settlement: a payout is a product of prices, dead-heat shares (1/n),
// deductions (percent) and tote percentages, and every one of those is kept exact until the single
// rounding at the end — down to the cent (docs/settlement.md). Never a binary float.
import { parseDecimal } from './money.ts';

/** n / d with d > 0, kept reduced. */
export interface Fraction {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

export function fraction(n: bigint, d: bigint = 1n): Fraction {
  if (d === 0n) throw new RangeError('fraction with a zero denominator');
  const sign = d < 0n ? -1n : 1n;
  const g = gcd(n, d < 0n ? -d : d);
  return { n: (sign * n) / g, d: (sign * d) / g };
}

export const ZERO = fraction(0n);
export const ONE = fraction(1n);

export function add(a: Fraction, b: Fraction): Fraction {
  return fraction(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function sub(a: Fraction, b: Fraction): Fraction {
  return fraction(a.n * b.d - b.n * a.d, a.d * b.d);
}

export function mul(a: Fraction, b: Fraction): Fraction {
  return fraction(a.n * b.n, a.d * b.d);
}

export function product(values: Fraction[]): Fraction {
  return values.reduce(mul, ONE);
}

export function isPositive(a: Fraction): boolean {
  return a.n > 0n;
}

export function max(a: Fraction, b: Fraction): Fraction {
  return a.n * b.d >= b.n * a.d ? a : b;
}

export function min(a: Fraction, b: Fraction): Fraction {
  return a.n * b.d <= b.n * a.d ? a : b;
}

/** Plain decimal text ("3.50", "12", "0.5") → its exact value. */
export function decimalText(text: string): Fraction {
  const places = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  const units = parseDecimal(text, places);
  if (units === undefined) throw new RangeError(`not decimal text: ${JSON.stringify(text)}`);
  return fraction(units, 10n ** BigInt(places));
}

/** Cents → dollars, exactly. */
export function cents(value: bigint): Fraction {
  return fraction(value, 100n);
}

/** Dollars → whole cents, rounded down (toward zero for the non-negative amounts paid). */
export function floorCents(dollars: Fraction): bigint {
  const scaled = dollars.n * 100n;
  const q = scaled / dollars.d;
  return scaled < 0n && q * dollars.d !== scaled ? q - 1n : q;
}
