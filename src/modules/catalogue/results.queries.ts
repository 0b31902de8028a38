// SQL of race results (race_results) and of the facts settlement reads about races: status,
// current final result (with when it was recorded), scratchings with their deductions, starters and the
// places-paid terms.
import type { Queryable } from '../../db/pool.ts';

export interface ResultRow {
  version: number;
  final: boolean;
  placings: number[][];
  dividends: Record<string, unknown>;
  recorded_at: Date;
}

export async function latestResult(db: Queryable, meetingId: number, raceNumber: number): Promise<ResultRow | undefined> {
  const { rows } = await db.query<ResultRow>(
    `SELECT version, final, placings, dividends, recorded_at FROM race_results
     WHERE meeting_id = $1 AND race_number = $2 ORDER BY version DESC LIMIT 1`, [meetingId, raceNumber]);
  return rows[0];
}

/** Inserts the next version of the race's result, with the places it pays. */
export async function insertResult(db: Queryable, meetingId: number, raceNumber: number, r: Omit<ResultRow, 'version'>, placesPaid: number): Promise<number> {
  const { rows } = await db.query<{ version: number }>(
    `INSERT INTO race_results (meeting_id, race_number, version, final, placings, dividends, recorded_at, places_paid)
     SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4, $5, $6, $7 FROM race_results WHERE meeting_id = $1 AND race_number = $2
     RETURNING version`,
    [meetingId, raceNumber, r.final, JSON.stringify(r.placings), JSON.stringify(r.dividends), r.recorded_at, placesPaid]);
  return rows[0]!.version;
}

/** The places paid fixed by the race's first result (undefined before it has one). */
export async function firstPlacesPaid(db: Queryable, meetingId: number, raceNumber: number): Promise<number | undefined> {
  const { rows } = await db.query<{ places_paid: number }>(
    'SELECT places_paid FROM race_results WHERE meeting_id = $1 AND race_number = $2 ORDER BY version LIMIT 1',
    [meetingId, raceNumber]);
  return rows[0]?.places_paid;
}

/** The place terms in force for the meeting's jurisdiction ('*' where it has none; none at all: []). */
export async function termsOfMeeting(db: Queryable, meetingId: number): Promise<Array<{ min_starters: number; places: number }>> {
  const { rows } = await db.query<{ terms: Array<{ min_starters: number; places: number }> }>(
    `SELECT coalesce((SELECT terms FROM place_terms WHERE jurisdiction = m.jurisdiction), (SELECT terms FROM place_terms WHERE jurisdiction = '*'), '[]') AS terms
       FROM meetings m WHERE m.meeting_id = $1`, [meetingId]);
  return rows[0]?.terms ?? [];
}

export interface FactsRow {
  meeting_id: string;
  race_number: number;
  status: string;
  placings: number[][] | null;
  dividends: Record<string, unknown> | null;
  starters: number;
  scratched: Array<{ runner: number; at: string; win: string | null; place: string | null }> | null;
  terms: Array<{ min_starters: number; places: number }>;
  /** Fixed by the race's first result (interim or final); null while it has none. */
  places_paid: number | null;
  /** The current final result's recording time, and whether an earlier final result preceded it. */
  recorded_at: Date | null;
  amended: boolean | null;
  /** When the race last changed status (an abandoned race: when it was abandoned). */
  status_changed_at: Date | null;
}

/** The facts of each race named (one statement whatever the number of races). */
export async function raceFacts(db: Queryable, races: Array<{ meetingId: number | string; raceNumber: number }>): Promise<FactsRow[]> {
  const { rows } = await db.query<FactsRow>({
    name: 'catalogue_race_facts',
    text: `SELECT r.meeting_id, r.race_number, r.status, r.status_changed_at, res.placings, res.dividends, res.recorded_at, res.amended,
             (SELECT places_paid FROM race_results y WHERE y.meeting_id = r.meeting_id AND y.race_number = r.race_number
               ORDER BY version LIMIT 1) AS places_paid,
             (SELECT count(*)::int FROM runners u WHERE u.meeting_id = r.meeting_id AND u.race_number = r.race_number AND NOT u.scratched) AS starters,
             (SELECT json_agg(json_build_object('runner', u.runner_number, 'at', u.scratched_at, 'win', u.win_deduction::text, 'place', u.place_deduction::text))
                FROM runners u WHERE u.meeting_id = r.meeting_id AND u.race_number = r.race_number AND u.scratched) AS scratched,
             coalesce((SELECT terms FROM place_terms WHERE jurisdiction = m.jurisdiction), (SELECT terms FROM place_terms WHERE jurisdiction = '*'), '[]') AS terms
           FROM race_starts r JOIN meetings m ON m.meeting_id = r.meeting_id
           LEFT JOIN LATERAL (SELECT placings, dividends, recorded_at,
                                     EXISTS (SELECT 1 FROM race_results z WHERE z.meeting_id = x.meeting_id AND z.race_number = x.race_number
                                                AND z.final AND z.version < x.version) AS amended
                                FROM race_results x
                               WHERE x.meeting_id = r.meeting_id AND x.race_number = r.race_number AND x.final
                               ORDER BY version DESC LIMIT 1) res ON true
           WHERE (r.meeting_id, r.race_number) IN (SELECT * FROM unnest($1::bigint[], $2::int[]))`,
    values: [races.map((r) => String(r.meetingId)), races.map((r) => r.raceNumber)],
  });
  return rows;
}

export async function setPlaceTerms(db: Queryable, jurisdiction: string, terms: Array<{ min_starters: number; places: number }>, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO place_terms (jurisdiction, terms, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (jurisdiction) DO UPDATE SET terms = EXCLUDED.terms, updated_at = EXCLUDED.updated_at`,
    [jurisdiction, JSON.stringify(terms), now]);
}

export async function listPlaceTerms(db: Queryable): Promise<Array<{ jurisdiction: string; terms: unknown; updated_at: Date }>> {
  const { rows } = await db.query<{ jurisdiction: string; terms: unknown; updated_at: Date }>(
    "SELECT jurisdiction, terms, updated_at FROM place_terms ORDER BY jurisdiction = '*' DESC, jurisdiction");
  return rows;
}
