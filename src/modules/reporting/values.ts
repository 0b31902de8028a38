// Exact conversions of uploaded scalar values: money to a 6-place decimal string (never a float
// in arithmetic), ISO 8601 timestamps with a UTC offset, and digit-string integers.

/** Largest money magnitude we store (NUMERIC(18, 6) holds 12 integer digits). */
export const MONEY_LIMIT = 1e12;
export const MONEY_PLACES = 6;

export interface Money {
  /** Decimal string rounded half away from zero to at most 6 places, no trailing zeros. */
  value: string;
  /** Decimal places of the number as sent (its shortest round-trip form). */
  places: number;
}

const PLAIN = /^-?\d+(?:\.(\d{1,6}))?$/;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The exact decimal a JSON number denotes, as its shortest round-trip form (what the sender wrote
 * for any number of up to 15 significant digits), rounded to 6 places. Caller checks finiteness.
 */
export function toMoney(n: number): Money {
  const text = String(n);
  const plain = PLAIN.exec(text);
  if (plain) return { value: text === '-0' ? '0' : text, places: plain[1]?.length ?? 0 };
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`unexpected number form ${text}`);
  const [, sign, whole, frac = '', exp = '0'] = m as unknown as [string, string, string, string | undefined, string | undefined];
  let digits = whole + frac;
  let point = whole.length + Number(exp);
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const intPart = digits.slice(0, point);
  const fracPart = digits.slice(point).replace(/0+$/, '');
  const places = fracPart.length;
  let scaled = BigInt(intPart + fracPart.slice(0, MONEY_PLACES).padEnd(MONEY_PLACES, '0'));
  if ((fracPart[MONEY_PLACES] ?? '0') >= '5') scaled += 1n; // half away from zero (on the magnitude)
  return { value: fromMicros(sign === '-' ? -scaled : scaled), places };
}

/** Integer micro-units (10^-6) of a decimal string produced by toMoney; exact (a Number while it
 * stays below 2^53, else a BigInt). */
export function toMicros(value: string): number | bigint {
  const negative = value.charCodeAt(0) === 45; // "-"
  const dot = value.indexOf('.');
  const whole = value.slice(negative ? 1 : 0, dot < 0 ? undefined : dot);
  const frac = dot < 0 ? '' : value.slice(dot + 1);
  const digits = whole + frac.padEnd(MONEY_PLACES, '0');
  const micros = digits.length <= 15 ? Number(digits) : BigInt(digits);
  return negative ? -micros : micros;
}

export function fromMicros(micros: bigint): string {
  const negative = micros < 0n;
  const digits = (negative ? -micros : micros).toString().padStart(MONEY_PLACES + 1, '0');
  const whole = digits.slice(0, -MONEY_PLACES);
  const frac = digits.slice(-MONEY_PLACES).replace(/0+$/, '');
  const text = frac ? `${whole}.${frac}` : whole;
  return negative && text !== '0' ? `-${text}` : text;
}

// ISO 8601 / RFC 3339 date-time WITH a UTC offset (spec 2.2: "ISO 8601 with UTC offset").
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)$/i;

export interface Instant {
  /** Milliseconds since the epoch. */
  ms: number;
  /** A normalised form PostgreSQL parses exactly (sub-millisecond digits kept). */
  text: string;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function daysIn(year: number, month: number): number {
  return month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS[month - 1]!;
}

/** Parses an ISO 8601 date-time with offset; undefined when it is not one or not a real time. */
const pad2 = (v: number): string => (v < 10 ? `0${v}` : String(v));

export function parseInstant(text: string): Instant | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const y = +m[1]!, mo = +m[2]!, d = +m[3]!, h = +m[4]!, mi = +m[5]!;
  const s = m[6] === undefined ? 0 : +m[6];
  const frac = m[7] ?? '';
  const offH = m[10] === undefined ? 0 : +m[10];
  const offM = m[11] === undefined ? 0 : +m[11];
  if (y < 1900 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  if (offH > 14 || offM > 59) return undefined;
  const offset = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (offH * 60 + offM);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s, frac ? +frac.padEnd(3, '0').slice(0, 3) : 0) - offset * 60_000;
  const zone = m[8] ? '+00:00' : `${m[9]}${pad2(offH)}:${pad2(offM)}`;
  return { ms, text: `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${pad2(s)}${frac ? `.${frac}` : ''}${zone}` };
}

/** A calendar date YYYY-MM-DD that exists. */
export function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return y >= 1900 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo);
}

// Unicode White_Space (spaces of every width, tabs, line breaks, NBSP, U+0085) and the BOM.
const SPACE = /[\p{White_Space}\uFEFF]/u;

/**
 * The one trimming rule of uploaded text (docs/upload.md): Unicode white space off both ends,
 * always, whatever the ends are; nothing inside is touched. A value that is only white space is
 * "" (not given), so an invisible value is never stored and an extra space never changes a verdict.
 * A loop, not /\s+$/: that regex is quadratic on a long run of spaces followed by a letter.
 */
export function trimText(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && SPACE.test(text[start]!)) start++;
  while (end > start && SPACE.test(text[end - 1]!)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * A positive integer sent as a JSON integer or as a string of digits (sample payloads send
 * meeting_id as a string, spec 2.1). Undefined when it is neither or exceeds `max`.
 */
export function positiveInteger(value: unknown, max: number): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d{1,18}$/.test(trimText(value))) n = Number(trimText(value));
  else return undefined;
  return Number.isSafeInteger(n) && n >= 1 && n <= max ? n : undefined;
}
