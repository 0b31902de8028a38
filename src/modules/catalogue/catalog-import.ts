// The catalogue file of `wagerline catalog import` and POST /catalog/meetings: a superset of the
// meetings file (examples/meetings.json) with products, runners, prices and pools per meeting
// (docs/catalogue.md). Pure: the whole file is checked and every problem collected (the first
// MAX_LISTED are listed) before anything is written.
import { AppError } from '../../errors.ts';
import { characters, showable, SHOWABLE_RULE } from '../../http/text-rules.ts';
import {
  checkPoolRaces, MAX_RUNNER_NUMBER, parseDeduction, parsePrice, parseProducts, POOL_PRODUCTS,
  type PoolProduct, type RaceProduct,
} from '../../racing/catalogue-rules.ts';
import { isDate, MAX_RACE_NUMBER, parseInstant, positiveInteger } from '../../racing/values.ts';

export interface CatalogRunner {
  number: number;
  name: string;
  /** true: scratch it (a scratching is never undone by an import); absent: unchanged. */
  scratched?: true;
  win_deduction?: string;
  place_deduction?: string;
  /** A price as "3.50"; null clears it; absent keeps the current one. */
  win?: string | null;
  place?: string | null;
}

export interface CatalogRace {
  race_number: number;
  start_time: string;
  /** Absent: a new race offers win and place, an existing one keeps its products. */
  products?: RaceProduct[];
  runners: CatalogRunner[];
}

export interface CatalogMeeting {
  meeting_id: number;
  date: string;
  venue: string;
  jurisdiction: string;
  code: 'T' | 'H' | 'G';
  races: CatalogRace[];
  /** Absent: the meeting's pools are kept; present (even empty): they are replaced. */
  pools?: Array<{ product: PoolProduct; races: number[] }>;
}

export interface Problem { field: string; message: string }

export const MAX_LISTED = 50;
const MEETING_KEYS = new Set(['meeting_id', 'date', 'venue', 'jurisdiction', 'code', 'races', 'pools']);
const RACE_KEYS = new Set(['race_number', 'start_time', 'products', 'runners']);
const RUNNER_KEYS = new Set(['number', 'name', 'scratched', 'win', 'place', 'win_deduction', 'place_deduction']);
// Code points (an emoji is one); half of a surrogate pair would be stored as U+FFFD, another name.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Collector {
  readonly list: Problem[] = [];
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }
  unknown(at: string, value: Obj, known: Set<string>): void {
    for (const key of Object.keys(value)) if (!known.has(key)) this.add(`${at}${key}`, 'is not a field of the catalogue file');
  }
}

/** A price field: absent → undefined, null → null, else the parsed price (or a problem). */
function price(p: Collector, at: string, value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  const parsed = parsePrice(value);
  if (!parsed.ok) p.add(at, parsed.message);
  return parsed.ok ? parsed.value : undefined;
}

function runner(p: Collector, at: string, r: unknown): CatalogRunner | undefined {
  if (!isObj(r)) return void p.add(at.slice(0, -1), 'must be an object');
  p.unknown(at, r, RUNNER_KEYS);
  const number = typeof r.number === 'number' ? positiveInteger(r.number, MAX_RUNNER_NUMBER) : undefined;
  if (number === undefined) p.add(`${at}number`, `must be an integer from 1 to ${MAX_RUNNER_NUMBER}`);
  const name = typeof r.name === 'string' ? r.name.trim() : '';
  if (!name || characters(name) > 100 || !showable(name)) p.add(`${at}name`, `is required: 1 to 100 characters, ${SHOWABLE_RULE}`);
  if (r.scratched !== undefined && typeof r.scratched !== 'boolean') p.add(`${at}scratched`, 'must be true or false');
  const out: CatalogRunner = { number: number ?? 0, name };
  if (r.scratched === true) out.scratched = true;
  for (const key of ['win_deduction', 'place_deduction'] as const) {
    if (r[key] === undefined) continue;
    if (r.scratched !== true) p.add(`${at}${key}`, 'is given only with "scratched": true');
    const parsed = parseDeduction(r[key]);
    if (parsed.ok) out[key] = parsed.value;
    else p.add(`${at}${key}`, parsed.message);
  }
  const win = price(p, `${at}win`, r.win);
  const place = price(p, `${at}place`, r.place);
  if (win !== undefined) out.win = win;
  if (place !== undefined) out.place = place;
  return out;
}

function race(p: Collector, at: string, r: unknown): CatalogRace | undefined {
  if (!isObj(r)) return void p.add(at.slice(0, -1), 'must be an object');
  p.unknown(at, r, RACE_KEYS);
  const number = positiveInteger(r.race_number, MAX_RACE_NUMBER);
  if (number === undefined) p.add(`${at}race_number`, `must be an integer from 1 to ${MAX_RACE_NUMBER}`);
  const start = typeof r.start_time === 'string' ? parseInstant(r.start_time.trim()) : undefined;
  if (!start) p.add(`${at}start_time`, 'must be an ISO 8601 date-time with a UTC offset');
  const out: CatalogRace = { race_number: number ?? 0, start_time: start?.text ?? '', runners: [] };
  if (r.products !== undefined) {
    const products = parseProducts(r.products);
    if (products.ok) out.products = products.value;
    else p.add(`${at}products`, products.message);
  }
  if (r.runners !== undefined && !Array.isArray(r.runners)) p.add(`${at}runners`, 'must be an array');
  const seen = new Set<number>();
  (Array.isArray(r.runners) ? r.runners : []).forEach((item, i) => {
    const parsed = runner(p, `${at}runners/${i}/`, item);
    if (!parsed || !parsed.number) return;
    if (seen.has(parsed.number)) p.add(`${at}runners/${i}/number`, `runner ${parsed.number} appears twice in the race`);
    seen.add(parsed.number);
    out.runners.push(parsed);
  });
  return out;
}

/**
 * Why two pools of one product may not end on the same race: their dividends are declared on it,
 * one per winning line of runner numbers (racing/results.ts), so each pool's winners would be paid
 * the other's dividend.
 */
export const SHARED_LAST_RACE = (product: string) =>
  `a ${product}'s dividends are declared on its last race, so two ${product}s cannot end on the same race`;

function pools(p: Collector, at: string, value: unknown, races: ReadonlySet<number>, existing: ReadonlySet<number>) {
  if (!Array.isArray(value)) return void p.add(at.slice(0, -1), 'must be an array');
  const known = new Set([...races, ...existing]);
  const out: NonNullable<CatalogMeeting['pools']> = [];
  const listedAt: number[] = []; // where each pool of `out` is in the file
  value.forEach((pool, i) => {
    const here = `${at}${i}/`;
    if (!isObj(pool)) return p.add(`${at}${i}`, 'must be an object');
    p.unknown(here, pool, new Set(['product', 'races']));
    const product = typeof pool.product === 'string' ? pool.product.trim().toLowerCase() : '';
    if (!(product in POOL_PRODUCTS)) return p.add(`${here}product`, `must be one of ${Object.keys(POOL_PRODUCTS).join(', ')}`);
    const problem = checkPoolRaces(product as PoolProduct, pool.races, known);
    if (problem) return p.add(`${here}races`, problem);
    const key = `${product}:${String(pool.races)}`;
    if (out.some((o) => `${o.product}:${String(o.races)}` === key)) return p.add(`${here}races`, 'this pool is listed twice');
    const sharing = out.findIndex((o) => o.product === product && o.races.at(-1) === (pool.races as number[]).at(-1));
    if (sharing >= 0) {
      const other = out[sharing]!;
      return p.add(`${here}races`, `ends on race ${other.races.at(-1)} as ${at}${listedAt[sharing]} (${product} of races ${other.races.join(', ')}) does: ${SHARED_LAST_RACE(product)}`);
    }
    out.push({ product: product as PoolProduct, races: pool.races as number[] });
    listedAt.push(i);
  });
  return out;
}

function meetingFields(p: Collector, at: string, m: Obj) {
  const id = positiveInteger(m.meeting_id, Number.MAX_SAFE_INTEGER);
  const date = typeof m.date === 'string' ? m.date.trim() : '';
  const venue = typeof m.venue === 'string' ? m.venue.trim() : '';
  const jurisdiction = typeof m.jurisdiction === 'string' ? m.jurisdiction.trim().toUpperCase() : '';
  const code = typeof m.code === 'string' ? m.code.trim().toUpperCase() : '';
  if (id === undefined) p.add(`${at}meeting_id`, 'must be a positive integer');
  if (!isDate(date)) p.add(`${at}date`, 'must be a date YYYY-MM-DD');
  if (!venue || characters(venue) > 200 || !showable(venue)) p.add(`${at}venue`, `is required: 1 to 200 characters, ${SHOWABLE_RULE}`);
  if (!/^[A-Z0-9_-]{1,32}$/.test(jurisdiction)) p.add(`${at}jurisdiction`, 'must be a code such as NSW');
  if (!['T', 'H', 'G'].includes(code)) p.add(`${at}code`, 'must be T (thoroughbred), H (harness) or G (greyhound)');
  return { meeting_id: id ?? 0, date, venue, jurisdiction, code: code as CatalogMeeting['code'] };
}

function meeting(p: Collector, at: string, m: unknown, existing: Existing): CatalogMeeting | undefined {
  if (!isObj(m)) return void p.add(at.slice(0, -1) || '(file)', 'must be a meeting object');
  p.unknown(at, m, MEETING_KEYS);
  const out: CatalogMeeting = { ...meetingFields(p, at, m), races: [] };
  if (m.races !== undefined && !Array.isArray(m.races)) p.add(`${at}races`, 'must be an array');
  (Array.isArray(m.races) ? m.races : []).forEach((item, i) => {
    const parsed = race(p, `${at}races/${i}/`, item);
    if (!parsed || !parsed.race_number) return;
    if (out.races.some((r) => r.race_number === parsed.race_number)) {
      p.add(`${at}races/${i}/race_number`, `race ${parsed.race_number} appears twice in the meeting`);
    } else out.races.push(parsed);
  });
  if (m.pools !== undefined) {
    const inFile = new Set(out.races.map((r) => r.race_number));
    const parsed = pools(p, `${at}pools/`, m.pools, inFile, existing.get(out.meeting_id) ?? new Set());
    if (parsed) out.pools = parsed;
  }
  return out;
}

/** Race numbers the catalogue already holds, per meeting: a pool may name races imported before. */
export type Existing = ReadonlyMap<number, ReadonlySet<number>>;

/** The meetings of a file: one meeting object, an array of them, or {"meetings": [...]}. */
function meetingList(input: unknown): { list: unknown[]; prefix: (i: number) => string } | undefined {
  if (Array.isArray(input)) return { list: input, prefix: (i) => `${i}/` };
  if (isObj(input) && Array.isArray(input.meetings) && input.meeting_id === undefined) {
    return { list: input.meetings, prefix: (i) => `meetings/${i}/` };
  }
  if (isObj(input)) return { list: [input], prefix: () => '' };
  return undefined;
}

/** Meeting ids named in a file, read loosely (before validation) to look up existing races. */
export function meetingIdsOf(input: unknown): number[] {
  return (meetingList(input)?.list ?? [])
    .map((m) => (isObj(m) ? positiveInteger(m.meeting_id, Number.MAX_SAFE_INTEGER) : undefined))
    .filter((id): id is number => id !== undefined);
}

/** Every problem of the file, or its meetings. */
export function checkCatalog(input: unknown, existing: Existing = new Map()): { meetings: CatalogMeeting[] } | { problems: Problem[] } {
  const files = meetingList(input);
  if (!files || files.list.length === 0) {
    return { problems: [{ field: '(file)', message: 'must hold a meeting object, an array of meetings or {"meetings": [...]}, with at least one meeting' }] };
  }
  const p = new Collector();
  // Beside "meetings" nothing is read: a "pools" put there by mistake would otherwise be dropped unsaid.
  if (isObj(input) && input.meeting_id === undefined) p.unknown('', input, new Set(['meetings']));
  const meetings: CatalogMeeting[] = [];
  files.list.forEach((item, i) => {
    const parsed = meeting(p, files.prefix(i), item, existing);
    if (!parsed) return;
    if (parsed.meeting_id && meetings.some((m) => m.meeting_id === parsed.meeting_id)) {
      p.add(`${files.prefix(i)}meeting_id`, `meeting ${parsed.meeting_id} appears twice in the file`);
    }
    meetings.push(parsed);
  });
  return p.list.length ? { problems: p.list } : { meetings };
}

/** The error refusing a file: validation_failed; `errors` lists the first MAX_LISTED problems, the detail the first 10. */
export function refusal(problems: Problem[]): AppError {
  const shown = problems.slice(0, 10).map((x) => `${x.field} ${x.message}`).join('; ');
  const more = problems.length > 10 ? ` (and ${problems.length - 10} more)` : '';
  return new AppError('validation_failed', `nothing imported: ${shown}${more}`, {
    extensions: { errors: problems.slice(0, MAX_LISTED), total_errors: problems.length },
  });
}
