// SQL of the upload intake: the uploader's context, the one set-based statement that stores a
// batch, and reading a race back. Tables: src/db/migrations/0002_reporting.sql; the catalogue is
// read through its SQL functions (0005_catalogue_functions.sql).
import type { Queryable } from '../../db/pool.ts';
import type { BetColumns } from './batch.ts';
import { arrayLiteral, STORED_COUNTS, storeVersions, VERSION_COLUMNS } from './versions.queries.ts';

export interface UploadContextRow {
  agencies: string[];
  currency: string;
  timezone: string;
  /** The race numbers the catalogue lists for the meeting (null when it does not list the meeting). */
  meeting_races: number[] | null;
}

export async function uploadContext(db: Queryable, clientId: string, meetingId: number | null): Promise<UploadContextRow | undefined> {
  const { rows } = await db.query<UploadContextRow>({
    name: 'reporting_upload_context',
    text: `SELECT c.agencies, t.currency, t.timezone,
                  catalogue_meeting_races($2) AS meeting_races
           FROM operator_clients c JOIN tenants t ON t.tenant_id = c.tenant_id
           WHERE c.client_id = $1`,
    values: [clientId, meetingId],
  });
  return rows[0];
}

/**
 * Serialises the uploads of one race of one tenant until the transaction ends. Without it, N
 * concurrent uploads of the same bets block on each other's rows, then find a snapshot older than
 * the rows they replaced and roll back and retry: O(N²) work and dead row versions. Queued, each
 * upload runs once, and its statement (a new snapshot in READ COMMITTED) sees every upload before.
 * The source is not part of the key: a batch may carry several sources, and one lock per upload
 * cannot deadlock. hashtextextended is stable across PostgreSQL versions (hash partitioning relies
 * on it); a collision of two races only makes them queue, never breaks correctness.
 */
export async function lockRace(db: Queryable, tenantId: string, meetingId: number, raceNumber: number): Promise<void> {
  await db.query({
    name: 'reporting_lock_race',
    text: `SELECT pg_advisory_xact_lock(hashtextextended('reporting_race:' || $1::text || ':' || $2::bigint || ':' || $3::int, 0))`,
    values: [tenantId, meetingId, raceNumber],
  });
}

// Upload columns in the order of the unnest() arrays, with their array types.
const INPUT: Array<[keyof BetColumns, string]> = [
  ['source', 'text'], ['bet_id', 'text'], ['leg', 'int'], ['bet_time', 'timestamptz'], ['bet_type', 'text'],
  ['runner_number', 'int'], ['exotics_selection', 'text'], ['user_id', 'text'], ['user_name', 'text'],
  ['user_state', 'text'], ['terminal_id', 'text'], ['info_type', 'text'], ['medium', 'text'], ['resulted', 'boolean'],
  ['status', 'text'], ['bonus', 'boolean'], ['back_indicator', 'boolean'], ['bet_back_id', 'text'],
  ['bet_back_agency', 'text'], ['bet_back_amount', 'numeric'], ['bet_back_revenue', 'numeric'],
  ['bet_back_date', 'timestamptz'], ['amount', 'numeric'], ['price', 'numeric'], ['payout', 'numeric'],
  ['net_result', 'numeric'], ['currency', 'text'],
];
const SCALARS = 7; // $1..$7 below
const unnestArgs = INPUT.map(([, type], i) => `$${SCALARS + 1 + i}::${type}[]`).join(', ');
const unnestNames = INPUT.map(([c]) => c).join(', ');
/** What the upload gives of each stored column, by name; the rest are the request's scalars. */
const FROM_UPLOAD: Record<string, string> = {
  tenant_id: '$1::uuid', meeting_id: '$2::bigint', race_number: '$3::int', api_version: '$7::smallint', client_id: '$4::text',
  first_received_at: '$5::timestamptz', last_received_at: '$5::timestamptz', deadline_at: 'd.deadline_at', late: '$5 > d.deadline_at',
};

// One statement per batch (ARCHITECTURE: set-based); versions.queries.ts stores the rows and keeps
// the versions they replace. If a concurrent upload changed a row after the statement's snapshot
// (only possible across races: lockRace serialises one race), the caller retries.
// $1 tenant, $2 meeting, $3 race, $4 client, $5 received_at, $6 time zone, $7 api version.
// The racing day is read here, in the statement that writes it, never before: the caller holds the
// race's lock and the meeting's (lockRace, lockMeetingShared), so the snapshot this statement
// starts with has every meeting import that committed before, and an import not yet committed
// re-dates these rows itself once it gets the meeting's lock (racing-days.queries.ts).
const UPSERT = `
WITH input AS (
  -- (SELECT …): an InitPlan, the meeting's date read once per statement, not once per bet.
  SELECT u.*, coalesce((SELECT catalogue_meeting_date($2::bigint)), (u.bet_time AT TIME ZONE $6::text)::date) AS racing_day
  FROM unnest(${unnestArgs}) AS u(${unnestNames})
), days AS MATERIALIZED (
  -- Deadline (spec 8), as the catalogue states it (docs/upload.md): 24 h after the last race
  -- start of the racing day's meetings, else 24 h after the end of that day in the tenant's zone.
  -- MATERIALIZED: once per racing day; inlined, the deadline was computed again for every bet.
  SELECT d.racing_day, catalogue_upload_deadline(d.racing_day, $6::text) AS deadline_at
  FROM (SELECT DISTINCT racing_day FROM input) d
), versions AS (
  SELECT ${VERSION_COLUMNS.map((c) => `${FROM_UPLOAD[c] ?? `i.${c}`} AS ${c}`).join(', ')}
  FROM input i JOIN days d ON d.racing_day = i.racing_day
), ${storeVersions('$5::timestamptz')}
SELECT ${STORED_COUNTS},
       (SELECT count(*) FROM up WHERE late)::int AS late,
       -- Per racing day, the bets this request stored late (an unchanged bet was not stored).
       (SELECT json_agg(json_build_object('racing_day', racing_day, 'deadline_at', deadline_at, 'bets', n) ORDER BY racing_day)
          FROM (SELECT racing_day, deadline_at, count(*)::int AS n FROM up WHERE late GROUP BY racing_day, deadline_at) l) AS late_days`;

export interface UpsertInput {
  tenantId: string;
  meetingId: number;
  raceNumber: number;
  clientId: string;
  receivedAt: Date;
  timezone: string;
  apiVersion: 1 | 2;
  bets: BetColumns;
}

export interface UpsertResult {
  created: number;
  updated: number;
  revisions: number;
  late: number;
  late_days: Array<{ racing_day: string; deadline_at: string; bets: number }> | null;
}

/** The statement and parameters that store one batch (exported for EXPLAIN in benchmarks). */
export function upsertStatement(input: UpsertInput): { name: string; text: string; values: unknown[] } {
  const values: unknown[] = [
    input.tenantId, input.meetingId, input.raceNumber, input.clientId, input.receivedAt,
    input.timezone, input.apiVersion,
    ...INPUT.map(([c, type]) => arrayLiteral(input.bets[c] as ReadonlyArray<string | number | boolean | null>, type === 'text' || type === 'timestamptz')),
  ];
  return { name: 'reporting_upsert_bets', text: UPSERT, values };
}

export async function upsertBets(db: Queryable, input: UpsertInput): Promise<UpsertResult> {
  const { rows } = await db.query<UpsertResult>(upsertStatement(input));
  return rows[0]!;
}

const MONEY_OUT = ['bet_back_amount', 'bet_back_revenue', 'amount', 'price', 'payout', 'net_result'];
// A stored bet in the upload's field names (money as exact decimal strings), plus what we recorded.
const BET_OUT = `source, bet_id AS id, leg, bet_time AS time, bet_type AS type, runner_number, exotics_selection,
  user_id, user_name, user_state, terminal_id, info_type, medium, resulted, status, bonus, back_indicator,
  bet_back_id, bet_back_agency, bet_back_date, currency,
  ${MONEY_OUT.map((c) => `trim_scale(${c})::text AS ${c}`).join(', ')},
  meeting_id::text AS meeting_id, race_number, client_id, api_version, first_received_at, last_received_at,
  racing_day::text AS racing_day, deadline_at, late, revision`;

export interface BetKey {
  source: string;
  bet_id: string;
  leg: number;
}

export type StoredBetRow = Record<string, unknown> & { source: string; id: string; leg: number };

export async function listRaceBets(
  db: Queryable,
  p: { tenantId: string; meetingId: number; raceNumber: number; source: string | null; after: BetKey | null; limit: number },
): Promise<StoredBetRow[]> {
  // Keyset pagination on (source, bet_id, leg) along reported_bets_race_idx.
  const { rows } = await db.query<StoredBetRow>({
    name: p.after ? 'reporting_list_after' : 'reporting_list_first',
    text: `SELECT ${BET_OUT} FROM reported_bets
           WHERE tenant_id = $1 AND meeting_id = $2 AND race_number = $3 AND ($4::text IS NULL OR source = $4)
           ${p.after ? 'AND (source, bet_id, leg) > ($6, $7, $8)' : ''}
           ORDER BY source, bet_id, leg LIMIT $5`,
    values: [p.tenantId, p.meetingId, p.raceNumber, p.source, p.limit,
      ...(p.after ? [p.after.source, p.after.bet_id, p.after.leg] : [])],
  });
  return rows;
}
