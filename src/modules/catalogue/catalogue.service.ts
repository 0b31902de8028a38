// The race catalogue: meetings, races (status, products, event id), runners with fixed-odds prices
// and scratchings, and the meetings' multi-race pools. The only writer of the catalogue's tables;
// betting reads races through getRace (under a row lock in its own transaction) and getPools.
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { parseDeduction, parsePrice, type PoolProduct } from '../../racing/catalogue-rules.ts';
import {
  acceptsPrices, acceptsScratchings, checkMove, isManualStatus, MANUAL_STATUSES, nextStatuses, type RaceStatus,
} from '../../racing/race-status.ts';
import { checkCatalog, meetingIdsOf, refusal } from './catalog-import.ts';
import { writeMeetings, type ImportResult, type PoolsInPlay, type ProductsInPlay, type RaceChange } from './catalog-write.ts';
import type { MeetingInput } from './catalogue-file.ts';
import * as q from './catalogue.queries.ts';
import * as rq from './races.queries.ts';
import { loadSampleDay, redate } from './sample-day.ts';
import { checkPlaceTerms, loadRaceFacts, recordResult, resultView, type PlaceTermsView, type ResultInput, type ResultView } from './results.ts';
import { latestResult, listPlaceTerms, setPlaceTerms } from './results.queries.ts';

export type { RaceStatus } from '../../racing/race-status.ts';

export interface RunnerView {
  number: number;
  name: string;
  scratched: boolean;
  scratched_at: string | null;
  /** Fixed-odds prices and deductions as exact decimal text, e.g. "3.50". */
  win: string | null;
  place: string | null;
  win_deduction: string | null;
  place_deduction: string | null;
}

export interface RaceView {
  meeting_id: number;
  race_number: number;
  event_id: string;
  /** The venue. */
  meeting_name: string;
  jurisdiction: string;
  code: 'T' | 'H' | 'G';
  date: string;
  /** ISO 8601, UTC. */
  start_time: string;
  status: RaceStatus;
  products: string[];
  runners: RunnerView[];
  /** The fewest starters its place terms pay places for (fewer: no place betting); null: none. */
  place_min_starters: number | null;
}

export interface PoolView { product: PoolProduct; races: number[] }

export type { ImportResult, RaceChange } from './catalog-write.ts';

function runnerView(r: rq.RunnerRow): RunnerView {
  return {
    number: r.runner_number, name: r.name, scratched: r.scratched, scratched_at: r.scratched_at?.toISOString() ?? null,
    win: r.win_price, place: r.place_price, win_deduction: r.win_deduction, place_deduction: r.place_deduction,
  };
}

function raceView(r: rq.RaceRow, runners: rq.RunnerRow[]): RaceView {
  return {
    meeting_id: Number(r.meeting_id), race_number: r.race_number, event_id: r.event_id, meeting_name: r.venue,
    jurisdiction: r.jurisdiction, code: r.code, date: r.meeting_date, start_time: r.start_time.toISOString(),
    status: r.status as RaceStatus, products: r.products, runners: runners.map(runnerView),
    place_min_starters: r.place_min_starters,
  };
}

const noRace = (m: number, n: number) => new AppError('race_not_found', `the catalogue has no race ${n} of meeting ${m}`);

function valueOrThrow(field: string, parsed: { ok: true; value: string } | { ok: false; message: string }): string {
  if (!parsed.ok) throw new AppError('validation_failed', `${field} ${parsed.message}`, { extensions: { errors: [{ field, message: parsed.message }] } });
  return parsed.value;
}

export interface CatalogueDeps {
  db: Pool;
  clock?: () => Date;
  /** Called inside the changing transaction (settlement queues the race there). */
  onRaceChange?: (tx: Queryable, change: RaceChange) => Promise<void>;
  /** Called inside an import's transaction with the meetings it wrote and the dates they had before (bets follow). */
  onMeetingsWritten?: (tx: Queryable, meetingIds: number[], previousDays: string[]) => Promise<unknown>;
  /** What bets still to settle need, which an import keeps: race products by "meeting/race"; the last races of their pools. */
  productsInPlay?: ProductsInPlay;
  poolsInPlay?: PoolsInPlay;
}

export function createCatalogueService({ db, clock = () => new Date(), onRaceChange, onMeetingsWritten, productsInPlay = async () => new Map(), poolsInPlay = async () => [] }: CatalogueDeps) {
  const changed = (tx: Queryable, change: RaceChange) => onRaceChange?.(tx, change) ?? Promise.resolve();
  // An import's write of meetings: the days they leave are read (their rows locked) first, so the
  // bets of those days get their deadlines again too, not only the bets of these meetings.
  async function writing<T>(tx: Queryable, meetings: Array<{ meeting_id: number }>, write: () => Promise<T>): Promise<T> {
    const ids = meetings.map((m) => m.meeting_id);
    const previousDays = await q.lockMeetingDays(tx, ids);
    const result = await write();
    await onMeetingsWritten?.(tx, ids, previousDays);
    return result;
  }

  /** The race locked for a change (FOR NO KEY UPDATE: waits for placements holding FOR SHARE). */
  async function lockedRace(tx: Queryable, meetingId: number, raceNumber: number): Promise<rq.RaceRow> {
    const race = await rq.getRace(tx, meetingId, raceNumber, 'update');
    if (!race) throw noRace(meetingId, raceNumber);
    return race;
  }

  async function runnerOf(tx: Queryable, meetingId: number, raceNumber: number, runner: number): Promise<rq.RunnerRow> {
    const [row] = await rq.getRunners(tx, meetingId, raceNumber, runner);
    if (!row) throw new AppError('runner_not_found', `race ${raceNumber} of meeting ${meetingId} has no runner ${runner}`);
    return row;
  }

  const service = {
    /** Upserts meetings and race start times in one transaction; races not listed are kept. */
    async importMeetings(meetings: MeetingInput[]): Promise<{ imported: number; races: number }> {
      return withTransaction(db, (tx) => writing(tx, meetings, async () => {
        await q.upsertMeetings(tx, meetings);
        const races = meetings.flatMap((m) => m.races.map((r) => ({ meeting_id: m.meeting_id, ...r })));
        await q.upsertRaceStarts(tx, races);
        return { imported: meetings.length, races: races.length };
      }));
    },

    /**
     * Imports a catalogue file (docs/catalogue.md): checked whole first, every problem listed, nothing
     * written on error; one transaction. Races, runners and pools not in the file are kept.
     */
    async importCatalog(input: unknown): Promise<ImportResult> {
      const existing = await rq.raceNumbers(db, meetingIdsOf(input));
      const checked = checkCatalog(input, existing);
      if ('problems' in checked) throw refusal(checked.problems);
      return withTransaction(db, (tx) => writing(tx, checked.meetings, () => writeMeetings(tx, checked.meetings, { clock, changed, productsInPlay, poolsInPlay })));
    },

    /**
     * A race with its runners. With `lock`, takes FOR SHARE on the race row in the caller's
     * transaction `tx`: a status change, price change or scratching waits for it, and it for them.
     * Lock the races of a multi-race bet in (meeting id, race number) order, as imports do.
     */
    async getRace(meetingId: number, raceNumber: number, options: { tx?: Queryable; lock?: boolean } = {}): Promise<RaceView | undefined> {
      if (options.lock && !options.tx) throw new TypeError('getRace: lock needs the caller\'s transaction (tx)');
      const on = options.tx ?? db;
      if (!options.lock) {
        const found = await rq.getRaceWithRunners(on, meetingId, raceNumber);
        return found && raceView(found.race, found.runners);
      }
      // Locked: the race row first, then its runners in a statement of their own. A statement that
      // waited for the lock still reads from the snapshot it started with, so a scratching or a
      // price committed by the change it waited for would be missed if both were one statement.
      const race = await rq.getRace(on, meetingId, raceNumber, 'share');
      return race && raceView(race, await rq.getRunners(on, meetingId, raceNumber));
    },

    /** getRace, or race_not_found. */
    async requireRace(meetingId: number, raceNumber: number): Promise<RaceView> {
      const view = await service.getRace(meetingId, raceNumber);
      if (!view) throw noRace(meetingId, raceNumber);
      return view;
    },

    /** The meeting's multi-race pools; `tx` reads them in the caller's transaction (no second connection held meanwhile). */
    async getPools(meetingId: number, options: { tx?: Queryable } = {}): Promise<PoolView[]> {
      return (await rq.listPools(options.tx ?? db, meetingId)) as PoolView[];
    },

    /** Moves a race along the status machine (racing/race-status.ts); interim and final come from results. */
    async setStatus(meetingId: number, raceNumber: number, asked: string) {
      const status = asked.trim().toLowerCase();
      if (!isManualStatus(status)) {
        throw new AppError('bad_request', `status must be one of ${MANUAL_STATUSES.join(', ')} (interim and final are set by results), got "${asked}"`);
      }
      return withTransaction(db, async (tx) => {
        const race = await lockedRace(tx, meetingId, raceNumber);
        const from = race.status as RaceStatus;
        const move = checkMove(from, status);
        if (!move.ok) {
          throw new AppError('race_status_conflict', `race ${raceNumber} of meeting ${meetingId}: ${move.reason}`, {
            extensions: { current_status: from, requested_status: status, allowed: nextStatuses(from) },
          });
        }
        if (move.changed) await rq.setStatus(tx, meetingId, raceNumber, from, status, clock());
        if (move.changed && status === 'abandoned') await changed(tx, { meetingId, raceNumber, cause: 'abandoned' });
        return { meeting_id: meetingId, race_number: raceNumber, event_id: race.event_id, status, previous_status: from, changed: move.changed };
      });
    },

    /** Sets a runner's fixed-odds win and/or place price; the change is kept in the price history. */
    async setPrice(meetingId: number, raceNumber: number, runner: number, prices: { win?: unknown; place?: unknown }) {
      if (prices.win === undefined && prices.place === undefined) throw new AppError('bad_request', 'give a win price, a place price or both');
      const win = prices.win === undefined ? undefined : valueOrThrow('win', parsePrice(prices.win));
      const place = prices.place === undefined ? undefined : valueOrThrow('place', parsePrice(prices.place));
      return withTransaction(db, async (tx) => {
        const race = await lockedRace(tx, meetingId, raceNumber);
        const before = await runnerOf(tx, meetingId, raceNumber, runner);
        if (!acceptsPrices(race.status as RaceStatus)) {
          throw new AppError('race_not_trading', `race ${raceNumber} of meeting ${meetingId} is ${race.status}: prices change only while it is open or suspended`, { extensions: { status: race.status } });
        }
        if (before.scratched) throw new AppError('runner_scratched', `runner ${runner} of race ${raceNumber} of meeting ${meetingId} is scratched and cannot be priced`);
        await rq.setPrices(tx, meetingId, raceNumber, runner, { ...(win && { win }), ...(place && { place }) }, clock());
        const after = await runnerOf(tx, meetingId, raceNumber, runner);
        const changed = after.win_price !== before.win_price || after.place_price !== before.place_price;
        return { meeting_id: meetingId, race_number: raceNumber, runner: runnerView(after), changed };
      });
    },

    /** Scratches a runner (kept scratched), with optional late-scratching deductions in percent. */
    async scratch(meetingId: number, raceNumber: number, runner: number, deductions: { win_deduction?: unknown; place_deduction?: unknown } = {}) {
      const win = deductions.win_deduction === undefined ? undefined : valueOrThrow('win_deduction', parseDeduction(deductions.win_deduction));
      const place = deductions.place_deduction === undefined ? undefined : valueOrThrow('place_deduction', parseDeduction(deductions.place_deduction));
      return withTransaction(db, async (tx) => {
        const race = await lockedRace(tx, meetingId, raceNumber);
        const before = await runnerOf(tx, meetingId, raceNumber, runner);
        if (!acceptsScratchings(race.status as RaceStatus)) {
          throw new AppError('race_not_trading', `race ${raceNumber} of meeting ${meetingId} is ${race.status}: scratchings are taken only until it is resulted`, { extensions: { status: race.status } });
        }
        await rq.scratch(tx, meetingId, raceNumber, runner, { ...(win && { win }), ...(place && { place }) }, clock());
        if (!before.scratched) await changed(tx, { meetingId, raceNumber, cause: 'scratching' });
        const after = await runnerOf(tx, meetingId, raceNumber, runner);
        return { meeting_id: meetingId, race_number: raceNumber, runner: runnerView(after), changed: !before.scratched || after.win_deduction !== before.win_deduction || after.place_deduction !== before.place_deduction };
      });
    },

    /**
     * Records a race's result (interim, or final: a final race's is an amendment) and moves its
     * status; a final result tells settlement in the same transaction (`tx` when given).
     */
    async recordResult(meetingId: number, raceNumber: number, input: ResultInput, options: { tx?: Queryable } = {}) {
      const run = async (tx: Queryable) => {
        // A pool dividend belongs on a pool's last race: the meeting's pools, and the replaced ones bets still hold.
        const pools = async () => [...await rq.listPools(tx, meetingId), ...await poolsInPlay(tx, [{ meetingId, raceNumber }])];
        const recorded = await recordResult(tx, await lockedRace(tx, meetingId, raceNumber), input, clock(), pools);
        if (recorded.status === 'final' && recorded.changed) await changed(tx, { meetingId, raceNumber, cause: recorded.amended ? 'amendment' : 'result' });
        return recorded;
      };
      return options.tx ? run(options.tx) : withTransaction(db, run);
    },

    /** The race's latest result (interim or final), or null. */
    async result(meetingId: number, raceNumber: number): Promise<ResultView | null> {
      const row = await latestResult(db, meetingId, raceNumber);
      return row ? resultView(row) : null;
    },

    /** Sets the places paid by starters in a jurisdiction ('*': any without its own); settlement reads them. */
    async setPlaceTerms(jurisdiction: unknown, terms: unknown): Promise<PlaceTermsView> {
      const checked = checkPlaceTerms(jurisdiction, terms);
      const now = clock();
      await setPlaceTerms(db, checked.jurisdiction, checked.terms, now);
      return { ...checked, updated_at: now.toISOString() };
    },

    /** Every jurisdiction's place terms, '*' first. */
    async placeTerms(): Promise<{ place_terms: PlaceTermsView[] }> {
      const rows = await listPlaceTerms(db);
      return { place_terms: rows.map((r) => ({ jurisdiction: r.jurisdiction, terms: r.terms as PlaceTermsView['terms'], updated_at: r.updated_at.toISOString() })) };
    },

    /** What settlement needs to know of each race named (racing/settle.ts RaceFacts), keyed "meeting:race". */
    raceFacts(races: Array<{ meetingId: number | string; raceNumber: number }>, tx: Queryable = db) {
      return loadRaceFacts(tx, races);
    },

    /**
     * raceFacts of races share-locked first in the caller's transaction `tx`: read after every change
     * of them that committed before, and none can commit until `tx` ends (a cash out's bound).
     */
    async lockedRaceFacts(races: Array<{ meetingId: number | string; raceNumber: number }>, tx: Queryable) {
      await rq.lockRaces(tx, races);
      return loadRaceFacts(tx, races);
    },

    /** The racing code (T thoroughbred, H harness, G greyhound) and jurisdiction of meetings, keyed by meeting id. */
    async meetingCodes(meetingIds: Array<number | string>): Promise<Map<string, { code: 'T' | 'H' | 'G'; jurisdiction: string }>> {
      const rows = await q.meetingCodes(db, [...new Set(meetingIds.map(String))]);
      return new Map(rows.map((r) => [r.meeting_id, { code: r.code as 'T' | 'H' | 'G', jurisdiction: r.jurisdiction }]));
    },

    /** Every price a runner has had, oldest first. */
    async priceHistory(meetingId: number, raceNumber: number, runner: number) {
      return (await rq.priceHistory(db, meetingId, raceNumber, runner)).map((h) => ({
        changed_at: h.changed_at.toISOString(), win: h.win_price, place: h.place_price, source: h.source,
      }));
    },

    /** Every status change of a race, oldest first. */
    async statusHistory(meetingId: number, raceNumber: number) {
      return (await rq.statusHistory(db, meetingId, raceNumber)).map((h) => ({ from: h.from_status, to: h.to_status, changed_at: h.changed_at.toISOString() }));
    },

    /** Imports the sample racing day (examples/racing-day.json) re-dated to `date` ("today" or YYYY-MM-DD). */
    async sample(date: string, options: { day?: unknown } = {}) {
      const day = redate(options.day ?? await loadSampleDay(), date, clock().getTime());
      const result = await service.importCatalog(day.meetings);
      return { date: day.date, ...result, meetings: day.summary };
    },
  };
  return service;
}

export type CatalogueService = ReturnType<typeof createCatalogueService>;
