// Results of races: `race result` records one (interim or final; a final result on a final race is
// an amendment, kept as a new version) and moves the race's status in the same transaction; the
// places paid per jurisdiction (place terms); the facts settlement reads about races
// (racing/settle.ts RaceFacts) are assembled here.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { checkMove, nextStatuses, type RaceStatus } from '../../racing/race-status.ts';
import {
  misfitDividends, misplacedPoolDividends, parseDividends, parsePlaceTerms, parsePlacings, placesPaid, raceKey, unfilledPositions, type Dividends, type PoolRaces, type StoredPlaceTerm,
} from '../../racing/results.ts';
import type { RaceFacts, Scratching } from '../../racing/settle.ts';
import * as rq from './races.queries.ts';
import * as q from './results.queries.ts';

export interface ResultInput {
  placings: unknown;
  dividends?: unknown;
  interim?: boolean;
  /** A final result placing fewer runners than the race's products need: fewer finished (docs/catalogue-results.md, Results). */
  short_field?: boolean;
}

export interface RecordedResult {
  meeting_id: number;
  race_number: number;
  status: 'interim' | 'final';
  previous_status: RaceStatus;
  version: number;
  /** A final result replacing an earlier final one (a protest upheld). */
  amended: boolean;
  /** false: the race's latest result is this one already (a repeated request): nothing recorded, nothing to settle. */
  changed: boolean;
  placings: number[][];
  dividends: Dividends;
}

/**
 * Checks and records a result in `tx`; the race row is locked (FOR NO KEY UPDATE) by `race`.
 * `pools`: the meeting's pools and those of bets still to settle ending on this race, read only
 * for a quaddie or daily double dividend (racing/results.ts misplacedPoolDividends).
 */
export async function recordResult(tx: Queryable, race: rq.RaceRow, input: ResultInput, now: Date,
  pools: () => Promise<PoolRaces[]>): Promise<RecordedResult> {
  const meetingId = Number(race.meeting_id);
  const where = `race ${race.race_number} of meeting ${meetingId}`;
  const from = race.status as RaceStatus;
  const to = input.interim ? 'interim' as const : 'final' as const;
  // The extensions of every race_status_conflict (docs/errors.md), as a refused status move has them.
  const extensions = { current_status: from, requested_status: to, allowed: nextStatuses(from) };
  if (from === 'final' && to === 'interim') {
    throw new AppError('race_status_conflict', `${where} is final: an interim result can no longer be given (a final result amends it)`, { extensions });
  }
  const move = checkMove(from, to);
  if (!move.ok) {
    const hint = from === 'open' || from === 'suspended' ? ' (close it first: race status … closed)' : '';
    throw new AppError('race_status_conflict', `${where}: ${move.reason}${hint}`, { extensions });
  }
  const runners = await rq.getRunners(tx, meetingId, race.race_number);
  const placings = parsePlacings(input.placings, runners.map((r) => ({ number: r.runner_number, scratched: r.scratched })));
  if (typeof placings === 'string') throw new AppError('validation_failed', `${where}: ${placings}`, { extensions: { errors: [{ field: 'placings', message: placings }] } });
  const dividends = parseDividends(input.dividends);
  if (typeof dividends === 'string') throw new AppError('validation_failed', `${where}: ${dividends}`, { extensions: { errors: [{ field: 'dividends', message: dividends }] } });
  // Each dividend must be one a bet on this race can be settled by (docs/catalogue-results.md, Results).
  const misfit = misfitDividends(dividends, placings, { products: race.products });
  if (misfit) throw new AppError('validation_failed', `${where}: ${misfit}`, { extensions: { errors: [{ field: 'dividends', message: misfit }] } });
  // The terms in force now, for a race's first result; later versions keep the first's places paid.
  const starters = runners.filter((r) => !r.scratched).length;
  const paid = await q.firstPlacesPaid(tx, meetingId, race.race_number)
    ?? placesPaid(starters, (await q.termsOfMeeting(tx, meetingId)).map((t) => ({ minStarters: t.min_starters, places: t.places })));
  const rule = { products: race.products, placesPaid: paid, starters, shortField: input.short_field === true };
  const unfilled = to === 'final' ? unfilledPositions(placings, dividends, rule) : undefined;
  if (unfilled) throw new AppError('validation_failed', `${where}: ${unfilled}`, { extensions: { errors: [{ field: 'placings', message: unfilled }] } });
  const recorded = { meeting_id: meetingId, race_number: race.race_number, status: to, previous_status: from, placings, dividends };
  // The same result again (a request retried after its answer was lost) is not an amendment.
  const latest = from === to ? await q.latestResult(tx, meetingId, race.race_number) : undefined;
  if (latest && sameResult(latest, placings, dividends)) return { ...recorded, version: latest.version, amended: false, changed: false };
  // After the retry's answer: a result recorded before this rule, or before its pool was replaced, is answered as it stands.
  const misplaced = 'quaddie' in dividends || 'dailydouble' in dividends ? misplacedPoolDividends(dividends, meetingId, race.race_number, await pools()) : undefined;
  if (misplaced) throw new AppError('validation_failed', `${where}: ${misplaced}`, { extensions: { errors: [{ field: 'dividends', message: misplaced }] } });
  const version = await q.insertResult(tx, meetingId, race.race_number, { final: to === 'final', placings, dividends, recorded_at: now }, paid);
  if (move.changed) await rq.setStatus(tx, meetingId, race.race_number, from, to, now);
  return { ...recorded, version, amended: from === 'final', changed: true };
}

/** Text of a value with object keys sorted and each dead heat's runners in order: equal results, equal texts. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

function sameResult(latest: q.ResultRow, placings: number[][], dividends: Dividends): boolean {
  const sorted = (p: number[][]) => p.map((group) => [...group].sort((a, b) => a - b));
  return canonical(sorted(latest.placings)) === canonical(sorted(placings)) && canonical(latest.dividends) === canonical(dividends);
}

/** How a result is shown (`race show`, GET …/result): the latest version, interim or final. */
export interface ResultView {
  version: number;
  final: boolean;
  placings: number[][];
  dividends: Dividends;
  recorded_at: string;
}

export function resultView(row: q.ResultRow): ResultView {
  return { version: row.version, final: row.final, placings: row.placings, dividends: row.dividends as Dividends, recorded_at: row.recorded_at.toISOString() };
}

export interface PlaceTermsView {
  jurisdiction: string;
  terms: StoredPlaceTerm[];
  updated_at: string;
}

/** A jurisdiction code (upper-cased) or '*', and its terms; validation_failed naming the field. */
export function checkPlaceTerms(jurisdiction: unknown, terms: unknown): { jurisdiction: string; terms: StoredPlaceTerm[] } {
  const code = typeof jurisdiction === 'string' ? jurisdiction.trim().toUpperCase() : '';
  if (code !== '*' && !/^[A-Z0-9_-]{1,32}$/.test(code)) {
    const message = 'must be a jurisdiction code such as VIC, or * for every jurisdiction without terms of its own';
    throw new AppError('validation_failed', `jurisdiction ${message}`, { extensions: { errors: [{ field: 'jurisdiction', message }] } });
  }
  const parsed = parsePlaceTerms(terms);
  if (typeof parsed === 'string') throw new AppError('validation_failed', parsed, { extensions: { errors: [{ field: 'terms', message: parsed }] } });
  return { jurisdiction: code, terms: parsed };
}

function factsOf(row: q.FactsRow): RaceFacts {
  const scratched = new Map<number, Scratching>((row.scratched ?? []).map((s) => [s.runner, { at: new Date(s.at), winDeduction: s.win, placeDeduction: s.place }]));
  const terms = row.terms.map((t) => ({ minStarters: t.min_starters, places: t.places }));
  const final = row.status === 'final' && row.placings !== null;
  return {
    status: row.status as RaceStatus,
    placings: final ? row.placings : null,
    dividends: final ? (row.dividends as Dividends) : {},
    placesPaid: row.places_paid ?? placesPaid(row.starters, terms),
    scratched,
    resultedAt: final ? row.recorded_at : null,
    amended: final && row.amended === true,
    abandonedAt: row.status === 'abandoned' ? row.status_changed_at : null,
  };
}

/** The facts of the races named, keyed "meetingId:raceNumber". */
export async function loadRaceFacts(db: Queryable, races: Array<{ meetingId: number | string; raceNumber: number }>): Promise<Map<string, RaceFacts>> {
  if (races.length === 0) return new Map();
  const rows = await q.raceFacts(db, races);
  return new Map(rows.map((row) => [raceKey(row.meeting_id, row.race_number), factsOf(row)]));
}
