// Money, exactly. An amount is a scaled integer: a bigint count of 10^-places units (cents for
// wallet amounts, micro-units for uploaded values). Text and JSON numbers are converted by string
// arithmetic on their digits, never by float arithmetic, and the one rounding rule (half away from
// zero) lives here. Used by the upload validator, the wallet wire format and the wallet sandbox.

/** Cents: the places of a wallet amount and of every stake and payout. */
export const CENT_PLACES = 2;
/** Micro-units: the places an uploaded money value is stored with (NUMERIC(18, 6)). */
export const MICRO_PLACES = 6;

/** How an amount is written on a wallet's wire: 12.50 (dollars) or 1250 (integer cents). */
export type AmountUnit = 'dollars' | 'cents';
export const AMOUNT_UNITS: readonly AmountUnit[] = ['dollars', 'cents'];

const PLAIN = /^(-?)(\d+)(?:\.(\d*))?$/;
const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/** Plain decimal text ("12", "12.5", "-0.01") with at most `places` decimals → units; else undefined. */
export function parseDecimal(text: string, places: number): bigint | undefined {
  const m = PLAIN.exec(text);
  if (!m || (m[3] !== undefined && (m[3].length === 0 || m[3].length > places))) return undefined;
  const units = BigInt(m[2]! + (m[3] ?? '').padEnd(places, '0'));
  return m[1] === '-' ? -units : units;
}

/** Units → text: 'fixed' keeps every place ("12.50"), 'trim' drops trailing zeros ("12.5", "12"). */
export function formatDecimal(units: bigint, places: number, style: 'fixed' | 'trim'): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  let frac = digits.slice(digits.length - places);
  if (style === 'trim') frac = frac.replace(/0+$/, '');
  const text = frac ? `${whole}.${frac}` : whole;
  return negative && /[1-9]/.test(text) ? `-${text}` : text;
}

export interface ExactNumber {
  /** The number in units of 10^-places, rounded half away from zero. */
  units: bigint;
  /** Decimal places of the number as sent (its shortest round-trip form, exponent expanded). */
  sentPlaces: number;
}

/**
 * The exact decimal a JSON number denotes — its shortest round-trip text, which is what the sender
 * wrote for any number of up to 15 significant digits — in units of 10^-places. Caller checks
 * finiteness.
 */
export function fromNumber(n: number, places: number): ExactNumber {
  const m = NUMBER_TEXT.exec(String(n));
  if (!m) throw new RangeError(`not a finite number: ${n}`);
  const [, sign, whole, frac = '', exp = '0'] = m as unknown as [string, string, string, string | undefined, string | undefined];
  let digits = whole + frac;
  let point = whole.length + Number(exp);
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const fracPart = digits.slice(point).replace(/0+$/, '');
  let units = BigInt(digits.slice(0, point) + fracPart.slice(0, places).padEnd(places, '0'));
  if ((fracPart[places] ?? '0') >= '5') units += 1n; // half away from zero, on the magnitude
  return { units: sign === '-' ? -units : units, sentPlaces: fracPart.length };
}

/** Most a bet's cash out or adjustment may be, exclusive: 10^11 dollars (the bets' money columns hold it). */
export const MAX_ACTION_CENTS = 10n ** 13n;

/** Dollars as text with at most two decimals ("12.5", "007") → cents; undefined when not that (a sign included). */
export function parseDollars(text: string): bigint | undefined {
  const trimmed = text.trim();
  return /^\d/.test(trimmed) ? parseDecimal(trimmed, CENT_PLACES) : undefined;
}

/** Cents → dollars with exactly two decimals: 1250 → "12.50". */
export function centsToDollars(cents: bigint | number): string {
  return formatDecimal(BigInt(cents), CENT_PLACES, 'fixed');
}

/** The JSON number text of an amount of cents in a wallet's unit: "12.50" or "1250". */
export function centsOnWire(cents: bigint, unit: AmountUnit): string {
  return unit === 'cents' ? cents.toString() : centsToDollars(cents);
}

/** A JSON number in a wallet's unit → cents; undefined when negative, inexact or above `max`. */
export function centsFromWire(value: unknown, unit: AmountUnit, max: bigint): bigint | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  // String(n) is the shortest text that round-trips: 0.1 + 0.2 is "0.30000000000000004", refused.
  const cents = parseDecimal(String(value), unit === 'cents' ? 0 : CENT_PLACES);
  return cents !== undefined && cents <= max ? cents : undefined;
}

const SHORT = /^-?\d+(?:\.(\d+))?$/;

/**
 * A JSON number as trimmed decimal text rounded to `places`, with the places it was sent with.
 * The common case (a plain number with few decimals) is its own text, without big-integer work.
 */
export function numberToDecimal(n: number, places: number): { text: string; sentPlaces: number } {
  const text = String(n);
  const plain = SHORT.exec(text);
  const sent = plain?.[1]?.length ?? 0;
  if (plain && sent <= places) return { text: text === '-0' ? '0' : text, sentPlaces: sent };
  const exact = fromNumber(n, places);
  return { text: formatDecimal(exact.units, places, 'trim'), sentPlaces: exact.sentPlaces };
}
