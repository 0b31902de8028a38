// The value rules of racing data: ISO 8601 timestamps with a UTC offset, calendar dates,
// digit-string integers and UTF-8 text (money is in money.ts).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical text form (any case): the ids of tenants, bets, users and wallet calls. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Race numbers within a meeting run from 1 to this. */
export const MAX_RACE_NUMBER = 99;

/** Largest money magnitude an upload stores (NUMERIC(18, 6) holds 12 integer digits). */
export const MONEY_LIMIT = 1e12;

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
  // Most values start and end with printable ASCII (never white space): done without a regex.
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  if (first > 0x20 && first < 0x7f && last > 0x20 && last < 0x7f) return text;
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

/**
 * Offset of the first byte that does not belong to a UTF-8 sequence (overlong forms, surrogates and
 * code points above U+10FFFF count as invalid, as TextDecoder has them): where decodeUtf8 says the
 * bytes stop being UTF-8.
 */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const [length, min] = b < 0x80 ? [1, 0] : b >= 0xc2 && b <= 0xdf ? [2, 0x80] : b >= 0xe0 && b <= 0xef ? [3, 0x800]
      : b >= 0xf0 && b <= 0xf4 ? [4, 0x10000] : [0, 0];
    if (length === 0) return i;
    let cp = length === 1 ? b : b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += length;
  }
  return bytes.length;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes as UTF-8 text (a leading byte-order mark dropped), or where they stop being UTF-8: the
 * offset of the first invalid byte and that byte as "0xE9". Read leniently, each invalid byte would
 * become U+FFFD, and two ids differing only there one id (the upload routes, the upload client).
 */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { invalidAt: number; byte: string } {
  try {
    return { text: strictUtf8.decode(bytes) };
  } catch {
    const at = firstInvalidUtf8Byte(bytes);
    return { invalidAt: at, byte: `0x${(bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, '0')}` };
  }
}
