// The upload intake (spec part A): validate a batch completely, then store it atomically and
// idempotently in one set-based statement; read a race's bets back; and write the bets placed
// through wagerline to the same store (placed-bets.ts). Never imports Fastify.
import type { Config } from '../../config.ts';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { AppError, problemSentence } from '../../errors.ts';
import type { CursorCodec } from '../../http/cursor.ts';
import type { Principal } from '../auth/tokens.service.ts';
import * as q from './intake.queries.ts';
import { concurrentChange } from './versions.queries.ts';
import { reportPlacedBets } from './placed-bets.ts';
import { isUnknownZoneError, tenantMisconfigured } from '../tenants/time-zones.ts';
import { lockMeetingShared, refreshRacingDays } from './racing-days.queries.ts';
import type { UploadWarning } from './batch.ts';
import { validateBatch } from './validate-batch.ts';
import { MAX_LEG } from './validate-bet.ts';
import { isObject, MAX_RACE_NUMBER, positiveInteger } from '../../racing/values.ts';
import { PLACED_SOURCE } from '../../racing/bet-kinds.ts';

export interface UploadResult {
  meeting_id: number;
  race_number: number;
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  warnings: UploadWarning[];
}

export interface BetPage {
  bets: Record<string, unknown>[];
  next_cursor: string | null;
}

/** The key of a bet from a cursor's items: exactly [source, bet id, leg], each as an upload's. */
function betKey(items: unknown[]): q.BetKey | undefined {
  const [source, betId, leg] = items;
  if (items.length !== 3 || typeof source !== 'string' || !/^[A-Z0-9_-]{1,32}$/.test(source)) return undefined;
  if (typeof betId !== 'string' || betId.length < 1 || betId.length > 64 || /[\u0000-\u001f\u007f]|\p{Cs}/u.test(betId)) return undefined;
  if (!Number.isInteger(leg) || (leg as number) < 1 || (leg as number) > MAX_LEG) return undefined;
  return { source, bet_id: betId, leg: leg as number };
}

/**
 * An authority sees a bet through its meeting's jurisdiction or its user_state (docs/reports.md):
 * on a meeting the catalogue does not know, a bet without user_state reaches none (a multi only
 * through its other legs) — until the meeting is imported (reports join the catalogue when they run).
 */
function noJurisdiction(meetingId: number, states: ReadonlyArray<string | null>): UploadWarning | undefined {
  const first = states.indexOf(null);
  if (first < 0) return undefined;
  const count = states.filter((s) => s === null).length;
  return {
    code: 'no_jurisdiction', field: `bets/${first}/user_state`, count,
    message: `meeting ${meetingId} is not in the catalogue and ${count === 1 ? 'a bet has' : `${count} bets have`} no user_state: `
      + 'no racing authority sees them here until the meeting is imported (meeting import, catalog import) or user_state is given; stored all the same',
  };
}

/** Why a race of a meeting the catalogue lists is not one of its races, or undefined when it is (or the meeting is not listed). */
function unlistedRace(meetingId: number, raceNumber: number, races: number[] | null): string | undefined {
  if (races === null || races.includes(raceNumber)) return undefined;
  const listed = races.length ? `lists races ${races.join(', ')} of meeting ${meetingId}, not race ${raceNumber}` : `lists meeting ${meetingId} without races`;
  return `the catalogue ${listed}; stored all the same (register the race with meeting import or catalog import, or check race_number)`;
}

export function createIntakeService(deps: { db: Pool; config: Config; cursors: CursorCodec; clock?: () => Date }) {
  const { db, cursors } = deps;
  const clock = deps.clock ?? (() => new Date());
  const userStates: ReadonlySet<string> = new Set(deps.config.WAGERLINE_UPLOAD_USER_STATES);

  async function upload(principal: Principal, version: 1 | 2, body: unknown): Promise<UploadResult> {
    const receivedAt = clock();
    const meetingGuess = isObject(body) ? positiveInteger(body.meeting_id, Number.MAX_SAFE_INTEGER) : undefined;
    const context = await q.uploadContext(db, principal.clientId, meetingGuess ?? null);
    if (!context) throw new AppError('invalid_token', 'the client of this token no longer exists');
    const result = validateBatch(body, {
      version,
      agencies: context.agencies,
      currency: context.currency,
      userStates,
      now: receivedAt,
      timezone: context.timezone,
    });
    if (!result.ok) {
      const invalid = new Set(result.errors.map((e) => e.index)).size;
      const first = result.errors[0]!;
      throw new AppError('validation_failed',
        `the batch was rejected, nothing was stored: ${invalid} invalid ${invalid === 1 ? 'entry' : 'entries'}; first: ${problemSentence(`body/${first.field}`, first.message)}`,
        { extensions: { errors: result.errors } });
    }
    // The race lock leaves one conflict: a bet re-uploaded under another race at the same moment
    // (its key is (source, id, leg), not the race). That is rare and short: a few attempts suffice.
    const stored = await withTransaction(db, async (tx) => {
      // Uploads of one race queue here instead of conflicting (docs/upload.md, "Concurrent uploads").
      await q.lockRace(tx, principal.tenantId, result.meetingId, result.raceNumber);
      // Then the meeting's, shared: an import of the meeting and this upload see each other's
      // writes (racing-days.queries.ts); the racing day is read by upsertBets, after both locks.
      await lockMeetingShared(tx, result.meetingId);
      const r = await q.upsertBets(tx, {
        tenantId: principal.tenantId,
        meetingId: result.meetingId,
        raceNumber: result.raceNumber,
        clientId: principal.clientId,
        receivedAt,
        timezone: context.timezone,
        apiVersion: version,
        bets: result.bets,
      });
      if (r.revisions !== r.updated) throw concurrentChange();
      return r;
    }, { attempts: 3 }).catch((error: unknown) => {
      // The statement works out racing days and deadlines in the tenant's zone: one PostgreSQL does
      // not know (stored before creation checked it) is the tenant's configuration, not the batch's
      // fault. Caught, not checked first: listing PostgreSQL's zones takes tens of milliseconds.
      throw isUnknownZoneError(error) ? tenantMisconfigured(principal.tenantId, context.timezone, error) : error;
    });
    const received = result.bets.bet_id.length;
    const warnings = result.warnings;
    const unlisted = meetingGuess === result.meetingId ? unlistedRace(result.meetingId, result.raceNumber, context.meeting_races) : undefined;
    if (unlisted) warnings.push({ code: 'unlisted_race', field: 'race_number', count: received, message: unlisted });
    const unseen = meetingGuess === result.meetingId && context.meeting_races === null ? noJurisdiction(result.meetingId, result.bets.user_state) : undefined;
    if (unseen) warnings.push(unseen);
    for (const day of stored.late_days ?? []) {
      warnings.push({
        code: 'late_upload',
        field: 'bets',
        count: day.bets,
        message: `received after the upload deadline ${new Date(day.deadline_at).toISOString()} of racing day ${day.racing_day} (docs/upload.md, Deadline); accepted and flagged late`,
      });
    }
    return {
      meeting_id: result.meetingId,
      race_number: result.raceNumber,
      received,
      created: stored.created,
      updated: stored.updated,
      unchanged: received - stored.created - stored.updated,
      warnings,
    };
  }

  async function listBets(
    principal: Principal,
    query: { meeting_id: string | number; race_number: string | number; source?: string; limit?: string; cursor?: string },
  ): Promise<BetPage> {
    const meetingId = positiveInteger(query.meeting_id, Number.MAX_SAFE_INTEGER);
    const raceNumber = positiveInteger(query.race_number, MAX_RACE_NUMBER);
    if (meetingId === undefined) throw new AppError('bad_request', 'meeting_id must be a positive integer');
    if (raceNumber === undefined) throw new AppError('bad_request', `race_number must be an integer from 1 to ${MAX_RACE_NUMBER}`);
    const source = query.source ? query.source.trim().toUpperCase() : null;
    // A cursor is valid for the listing it came from only: same tenant, race and source filter.
    const scope = JSON.stringify(['bets', principal.tenantId, meetingId, raceNumber, source]);
    const limit = query.limit === undefined ? 100 : positiveInteger(query.limit, 1000);
    if (limit === undefined) throw new AppError('bad_request', 'limit must be an integer from 1 to 1000');
    const rows = await q.listRaceBets(db, {
      tenantId: principal.tenantId,
      meetingId,
      raceNumber,
      source,
      after: query.cursor ? cursors.decode(query.cursor, scope, betKey) : null,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const bets = page.map((r) => ({ ...r, meeting_id: Number(r.meeting_id) }));
    return { bets, next_cursor: rows.length > limit && last ? cursors.encode(scope, [last.source, last.id, last.leg]) : null };
  }

  return {
    upload,
    listBets,
    /** Bets placed through wagerline, written inside the caller's open transaction (placed-bets.ts). */
    reportPlacedBets,
    /**
     * Meetings written to the catalogue (previousDays: the dates they were on before): their bets'
     * racing day and the deadlines of the days touched follow, in the caller's transaction.
     */
    refreshRacingDays: (tx: Queryable, meetingIds: number[], previousDays: string[] = []) => refreshRacingDays(tx, meetingIds, PLACED_SOURCE, previousDays),
  };
}

export type IntakeService = ReturnType<typeof createIntakeService>;
