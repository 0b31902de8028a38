// Reads an operator's bets file for the upload client: JSON, NDJSON or CSV, into one list of bets,
// each with the meeting and race it belongs to (spec 2.1: one meeting and race per request) and
// where in the file it came from, so a rejected bet can be found again. Every problem in the
// file is collected before anything is sent: a file is either sendable as a whole or not at all.
import { constants } from 'node:buffer';
import { parse as parseCsv } from 'csv-parse/sync';
import { decodeUtf8, isObject, trimText } from '../../racing/values.ts';

export type FileFormat = 'json' | 'ndjson' | 'csv';

export interface FileBet {
  /** Meeting id as a canonical string of digits (no leading zeros). */
  meetingId: string;
  raceNumber: number;
  /** The bet as it will be sent: meeting_id and race_number removed. */
  bet: Record<string, unknown>;
  /** Where the bet is in the file, e.g. "line 7", "row 12", "bets[3]". */
  at: string;
}

export class BetsFileError extends Error {
  constructor(readonly problems: string[]) {
    const shown = problems.slice(0, 10).join('; ');
    super(`nothing was sent: ${shown}${problems.length > 10 ? ` (and ${problems.length - 10} more)` : ''}`);
  }
}

// CSV cells are text: these columns become JSON booleans and numbers (spec 2.2 types). A cell
// that does not convert is sent as text, so the service names the bet and field in its 400.
const BOOLEANS = new Set(['resulted', 'bonus', 'back_indicator']);
const INTEGERS = new Set(['leg', 'runner_number', 'bet_back_id']);
const MONEY = new Set(['amount', 'price', 'payout', 'net_result', 'bet_back_amount', 'bet_back_revenue']);
const TRUE = new Set(['true', '1', 'yes', 'y', 't']);
const FALSE = new Set(['false', '0', 'no', 'n', 'f']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A bets file's bytes as text (decodeUtf8); one that is not UTF-8 is refused, saying where, and one
 * too long for a string too (its decoding fails: it would be called "not UTF-8" at its end). */
export function decodeBetsFile(bytes: Uint8Array): string {
  const max = constants.MAX_STRING_LENGTH;
  if (bytes.length > max) throw new BetsFileError([`the file is ${bytes.length} bytes: at most ${max} can be read (the client reads a file whole, to group it by race); split it, e.g. by meeting or day`]);
  const decoded = decodeUtf8(bytes);
  if ('text' in decoded) return decoded.text;
  let line = 1;
  for (let i = 0; i < decoded.invalidAt; i++) if (bytes[i] === 0x0a) line++;
  throw new BetsFileError([`the file is not UTF-8: byte ${decoded.byte} on line ${line} (offset ${decoded.invalidAt}) is not part of a UTF-8 character; save it as UTF-8`]);
}

export function detectFormat(file: string, text: string): FileFormat {
  const lower = file.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson';
  if (lower.endsWith('.json')) return 'json';
  const start = text.trimStart()[0];
  if (start === '[') return 'json';
  if (start === '{') {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      return 'ndjson';
    }
  }
  return 'csv';
}

/** A positive integer (JSON integer or digit string) as canonical digits, else undefined. */
export function canonicalId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^\s*\d{1,18}\s*$/.test(value)) {
    const digits = BigInt(value.trim()).toString();
    return digits === '0' ? undefined : digits;
  }
  return undefined;
}

/** The id type of the chosen version (spec 9): V1 integers, V2 strings. Digit strings become integers for V1. */
function coerceId(bet: Record<string, unknown>, version: 1 | 2): void {
  const id = bet.id;
  if (version === 2 && typeof id === 'number' && Number.isFinite(id)) bet.id = String(id);
  if (version === 1 && typeof id === 'string' && /^\d{1,16}$/.test(id.trim()) && Number.isSafeInteger(Number(id))) bet.id = Number(id);
}

function csvValue(column: string, cell: string): unknown {
  const text = cell.trim();
  if (BOOLEANS.has(column)) {
    const lower = text.toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    return text;
  }
  // A number beyond a double's range (1e400) becomes Infinity, which JSON.stringify sends as null,
  // i.e. "not given": sent as the text it is instead, so the service refuses it by name.
  if (MONEY.has(column) && NUMBER.test(text)) {
    const n = Number(text);
    return Number.isFinite(n) ? n : text;
  }
  // A bet-back id is another bookmaker's identifier, stored as text: "00042" as 42 would be
  // another id, so only digits that read back the same become a JSON integer.
  if (column === 'bet_back_id' && /^0\d/.test(text)) return text;
  if (INTEGERS.has(column) && /^\d{1,15}$/.test(text)) return Number(text);
  return text;
}

/**
 * Where a bet holds a number JSON.parse could not keep (1e400 and beyond: ±Infinity), e.g.
 * "payout"; undefined when it holds none. JSON.stringify would send it as null, "not given", and
 * the bet would be stored without it. Iterative: any nesting.
 */
function nonFinitePlace(bet: Record<string, unknown>): string | undefined {
  const stack: Array<[unknown, string]> = Object.entries(bet).map(([k, v]) => [v, k]);
  while (stack.length) {
    const [v, place] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return place;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push([item, `${place}[${i}]`]));
    else if (isObject(v)) for (const [k, item] of Object.entries(v)) stack.push([item, `${place}.${k}`]);
  }
  return undefined;
}

/** One bet with its meeting and race (its own, or inherited from the request that holds it). */
function toFileBet(
  raw: unknown, at: string, version: 1 | 2, problems: string[], inherited?: { meeting_id?: unknown; race_number?: unknown },
): FileBet | undefined {
  if (!isObject(raw)) {
    problems.push(`${at}: a bet must be an object`);
    return undefined;
  }
  const { meeting_id: ownMeeting, race_number: ownRace, ...bet } = raw;
  const meetingRaw = ownMeeting ?? inherited?.meeting_id;
  const raceRaw = ownRace ?? inherited?.race_number;
  const meetingId = canonicalId(meetingRaw);
  const race = canonicalId(raceRaw);
  const before = problems.length;
  if (meetingId === undefined) {
    problems.push(meetingRaw === undefined || meetingRaw === '' ? `${at}: meeting_id is missing` : `${at}: meeting_id must be a positive integer`);
  }
  if (race === undefined || race.length > 6) {
    problems.push(raceRaw === undefined || raceRaw === '' ? `${at}: race_number is missing` : `${at}: race_number must be a positive integer`);
  }
  // JSON.parse has already rounded such a number: two ids could become one, so it is refused.
  if (typeof bet.id === 'number' && Number.isInteger(bet.id) && !Number.isSafeInteger(bet.id)) {
    problems.push(`${at}: id is an integer above ${Number.MAX_SAFE_INTEGER}, which a JSON number cannot hold exactly; write it as a string ("id": "…")`);
  }
  const infinite = nonFinitePlace(bet);
  if (infinite !== undefined) {
    problems.push(`${at}: ${infinite} is a number beyond a double's range (about ±1.8e308), which would be sent as null (not given)`);
  }
  if (problems.length > before) return undefined;
  coerceId(bet, version);
  return { meetingId: meetingId!, raceNumber: Number(race), bet, at };
}

function fromJsonValue(value: unknown, version: 1 | 2, problems: string[]): FileBet[] {
  const out: FileBet[] = [];
  const push = (bet: FileBet | undefined) => bet && out.push(bet);
  const request = (req: Record<string, unknown>, at: string) => {
    if (!Array.isArray(req.bets)) {
      problems.push(`${at}: "bets" must be an array`);
      return;
    }
    req.bets.forEach((bet, i) => push(toFileBet(bet, `${at}bets[${i}]`, version, problems, req)));
  };
  if (isObject(value)) {
    request(value, '');
  } else if (Array.isArray(value)) {
    // An array of upload requests (each with "bets") or an array of bets.
    value.forEach((item, i) => {
      if (isObject(item) && Array.isArray(item.bets)) request(item, `[${i}].`);
      else push(toFileBet(item, `[${i}]`, version, problems));
    });
  } else {
    problems.push('the JSON file must hold an array of bets, an upload request {meeting_id, race_number, bets} or an array of upload requests');
  }
  return out;
}

function fromNdjson(text: string, version: 1 | 2, problems: string[]): FileBet[] {
  const out: FileBet[] = [];
  const push = (bet: FileBet | undefined) => bet && out.push(bet);
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(`line ${i + 1}: not valid JSON (${(error as Error).message})`);
      return;
    }
    if (isObject(value) && Array.isArray(value.bets)) {
      value.bets.forEach((bet, j) => push(toFileBet(bet, `line ${i + 1} bets[${j}]`, version, problems, value as Record<string, unknown>)));
    } else {
      push(toFileBet(value, `line ${i + 1}`, version, problems));
    }
  });
  return out;
}

// The line each CSV record starts on, from where records end (csv-parse's info.bytes): a record's
// index is not its place once a blank line is skipped or a quoted cell holds a line break.
function startLines(buf: Buffer, ends: number[]): number[] {
  let line = 1;
  let pos = 0;
  const advance = (to: number) => {
    for (; pos < to; pos++) if (buf[pos] === 0x0a || (buf[pos] === 0x0d && buf[pos + 1] !== 0x0a)) line++;
  };
  let previousEnd = 0;
  return ends.map((end) => {
    advance(previousEnd);
    while (buf[pos] === 0x0a || buf[pos] === 0x0d) advance(pos + 1); // skipped blank lines
    previousEnd = end;
    return line;
  });
}

function fromCsv(text: string, version: 1 | 2, problems: string[]): FileBet[] {
  const source = Buffer.from(text.replace(/^\ufeff/, ''));
  let parsed: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    parsed = parseCsv(source, { skip_empty_lines: true, relax_column_count: false, info: true }) as unknown as typeof parsed;
  } catch (error) {
    problems.push(`not valid CSV: ${(error as Error).message}`);
    return [];
  }
  const lines = startLines(source, parsed.map((p) => p.info.bytes));
  const [header, ...rows] = parsed.map((p) => p.record);
  if (!header) return [];
  const columns = header.map((h) => h.trim());
  const duplicate = columns.find((c, i) => columns.indexOf(c) !== i);
  if (duplicate) problems.push(`header: column "${duplicate}" appears twice`);
  const out: FileBet[] = [];
  rows.forEach((cells, i) => {
    const bet: Record<string, unknown> = {};
    // An empty cell is an absent field (CSV has no null).
    columns.forEach((column, j) => {
      const cell = cells[j] ?? '';
      if (column && cell.trim() !== '') bet[column] = csvValue(column, cell);
    });
    const b = toFileBet(bet, `row ${lines[i + 1]}`, version, problems);
    if (b) out.push(b);
  });
  return out;
}

/** Parses a bets file; throws BetsFileError listing every problem found. */
export function readBets(text: string, format: FileFormat, version: 1 | 2): FileBet[] {
  const problems: string[] = [];
  let bets: FileBet[] = [];
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new BetsFileError([`not valid JSON (${(error as Error).message})`]);
    }
    bets = fromJsonValue(value, version, problems);
  } else if (format === 'ndjson') {
    bets = fromNdjson(text, version, problems);
  } else {
    bets = fromCsv(text, version, problems);
  }
  if (problems.length) throw new BetsFileError(problems);
  if (!bets.length) throw new BetsFileError(['the file holds no bets']);
  const repeated = repeatedBets(bets);
  if (repeated.length) throw new BetsFileError(repeated);
  return bets;
}

/**
 * A source as the service keys it: trimmed and upper-cased, a blank one not given (the client's
 * single agency), so "TAB", " tab" and "Tab" are one bet there and must be one here too.
 */
function sourceKey(source: unknown): unknown {
  if (typeof source !== 'string') return source ?? null;
  const trimmed = trimText(source);
  return trimmed === '' ? null : trimmed.toUpperCase();
}

/**
 * One bet (source, id, leg) twice in the file: in one race its two rows would go in one request
 * (refused) or in two sent at once; in two races, the service moves a bet to the race it was last
 * uploaded under (its key is not the race), and races are sent two at a time — whichever arrives
 * last would win. A file holds each bet once, in its latest state.
 */
function repeatedBets(bets: FileBet[]): string[] {
  const seen = new Map<string, { at: string; race: string }>();
  const problems: string[] = [];
  for (const { meetingId, raceNumber, bet, at } of bets) {
    const key = JSON.stringify([sourceKey(bet.source), bet.id ?? null, bet.leg ?? 1]);
    const race = `${meetingId}/${raceNumber}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, { at, race });
    else {
      const where = first.race === race ? 'in one race' : `in race ${first.race} and race ${race}`;
      problems.push(`${at}: the same bet as ${first.at} (source, id and leg ${where}); a file holds each bet once, in its latest state`);
    }
  }
  return problems;
}
