// SQL of races, runners, prices and pools (race_starts, runners, runner_price_history,
// meeting_pools). Rows are written in key order so concurrent writers cannot deadlock.
import type { Queryable } from '../../db/pool.ts';

export interface RaceRow {
  meeting_id: string;
  race_number: number;
  event_id: string;
  venue: string;
  jurisdiction: string;
  code: 'T' | 'H' | 'G';
  meeting_date: string;
  start_time: Date;
  status: string;
  products: string[];
  place_min_starters: number | null;
}

export interface RunnerRow {
  runner_number: number;
  name: string;
  scratched: boolean;
  scratched_at: Date | null;
  win_price: string | null;
  place_price: string | null;
  win_deduction: string | null;
  place_deduction: string | null;
}

export interface RunnerInput {
  meeting_id: number; race_number: number; number: number; name: string; scratched: boolean;
  win_deduction: string | null; place_deduction: string | null;
  win: string | null; win_given: boolean; place: string | null; place_given: boolean;
}

// The fewest starters the place terms in force pay places for (the jurisdiction's, else '*'); null: none.
const PLACE_MIN_STARTERS = `(SELECT min((t->>'min_starters')::int) FROM jsonb_array_elements(coalesce(
       (SELECT terms FROM place_terms WHERE jurisdiction = m.jurisdiction), (SELECT terms FROM place_terms WHERE jurisdiction = '*'), '[]')) t)
       AS place_min_starters`;

const LOCKS = { share: 'FOR SHARE OF r', update: 'FOR NO KEY UPDATE OF r' } as const;

/** The race and its meeting; `lock` takes a row lock on the race in the caller's transaction. */
export async function getRace(db: Queryable, meetingId: number, raceNumber: number, lock?: keyof typeof LOCKS): Promise<RaceRow | undefined> {
  const { rows } = await db.query<RaceRow>({
    name: `catalogue_race_${lock ?? 'unlocked'}`,
    text: `SELECT r.meeting_id, r.race_number, r.event_id, m.venue, m.jurisdiction, m.code, m.meeting_date::text AS meeting_date,
            r.start_time, r.status, r.products, ${PLACE_MIN_STARTERS}
     FROM race_starts r JOIN meetings m ON m.meeting_id = r.meeting_id
     WHERE r.meeting_id = $1 AND r.race_number = $2 ${lock ? LOCKS[lock] : ''}`,
    values: [meetingId, raceNumber],
  });
  return rows[0];
}

/**
 * The race, its meeting and its runners in one statement: one row per runner (the race's columns
 * repeated). A race without runners is one row with the runner's columns null. Never with a lock:
 * a statement that waits for a lock keeps its older snapshot of the runners (getRace, then getRunners).
 */
export async function getRaceWithRunners(db: Queryable, meetingId: number, raceNumber: number): Promise<{ race: RaceRow; runners: RunnerRow[] } | undefined> {
  const { rows } = await db.query<RaceRow & { [K in keyof RunnerRow]: RunnerRow[K] | null }>({
    name: 'catalogue_race_with_runners',
    text: `SELECT r.meeting_id, r.race_number, r.event_id, m.venue, m.jurisdiction, m.code, m.meeting_date::text AS meeting_date,
            r.start_time, r.status, r.products, ${PLACE_MIN_STARTERS}, u.runner_number, u.name, u.scratched, u.scratched_at, u.win_price, u.place_price,
            u.win_deduction, u.place_deduction
     FROM race_starts r
       JOIN meetings m ON m.meeting_id = r.meeting_id
       LEFT JOIN runners u ON u.meeting_id = r.meeting_id AND u.race_number = r.race_number
     WHERE r.meeting_id = $1 AND r.race_number = $2
     ORDER BY u.runner_number`,
    values: [meetingId, raceNumber],
  });
  const first = rows[0];
  if (!first) return undefined;
  const { meeting_id, race_number, event_id, venue, jurisdiction, code, meeting_date, start_time, status, products, place_min_starters } = first;
  const runners = rows.filter((row) => row.runner_number !== null).map((row) => ({
    runner_number: row.runner_number!, name: row.name!, scratched: row.scratched!, scratched_at: row.scratched_at, win_price: row.win_price,
    place_price: row.place_price, win_deduction: row.win_deduction, place_deduction: row.place_deduction,
  }));
  return { race: { meeting_id, race_number, event_id, venue, jurisdiction, code, meeting_date, start_time, status, products, place_min_starters }, runners };
}

export async function getRunners(db: Queryable, meetingId: number, raceNumber: number, runner?: number): Promise<RunnerRow[]> {
  const { rows } = await db.query<RunnerRow>({
    name: 'catalogue_runners',
    text: `SELECT runner_number, name, scratched, scratched_at, win_price, place_price, win_deduction, place_deduction
     FROM runners WHERE meeting_id = $1 AND race_number = $2 AND ($3::int IS NULL OR runner_number = $3)
     ORDER BY runner_number`,
    values: [meetingId, raceNumber, runner ?? null],
  });
  return rows;
}

/** Race numbers already in the catalogue, per meeting. */
export async function raceNumbers(db: Queryable, meetingIds: number[]): Promise<Map<number, Set<number>>> {
  const { rows } = await db.query<{ meeting_id: string; race_number: number }>(
    'SELECT meeting_id, race_number FROM race_starts WHERE meeting_id = ANY($1::bigint[])', [meetingIds]);
  const out = new Map<number, Set<number>>();
  for (const r of rows) out.set(Number(r.meeting_id), (out.get(Number(r.meeting_id)) ?? new Set()).add(r.race_number));
  return out;
}

/** Adds or updates races; products null keeps an existing race's list (a new one gets win, place). */
export async function upsertRaces(
  db: Queryable,
  races: Array<{ meeting_id: number; race_number: number; start_time: string; products: string[] | null }>,
): Promise<void> {
  if (!races.length) return;
  const args = [races.map((r) => r.meeting_id), races.map((r) => r.race_number), races.map((r) => r.start_time),
    races.map((r) => r.products?.join(',') ?? null)];
  await db.query(
    `INSERT INTO race_starts (meeting_id, race_number, start_time, products)
     SELECT m, n, s, coalesce(string_to_array(p, ','), '{win,place}') FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::text[]) AS u(m, n, s, p)
     ORDER BY m, n
     ON CONFLICT (meeting_id, race_number) DO UPDATE SET start_time = excluded.start_time`, args);
  await db.query(
    `UPDATE race_starts r SET products = string_to_array(u.p, ',')
     FROM unnest($1::bigint[], $2::int[], $3::timestamptz[], $4::text[]) AS u(m, n, s, p)
     WHERE r.meeting_id = u.m AND r.race_number = u.n AND u.p IS NOT NULL`, args);
}

/** A race and its status, as the import's checks read them. */
export interface RaceStatusRow { meeting_id: string; race_number: number; status: string }

/**
 * Locks the races named that exist, in (meeting, race) order — the order imports and takes lock in —
 * in the caller's transaction: shared, a scratching, result or status change of one waits for it,
 * and it for them; `update` (an import), as those changes lock them.
 */
export async function lockRaces(db: Queryable, races: Array<{ meetingId: number | string; raceNumber: number }>, mode: keyof typeof LOCKS = 'share'): Promise<void> {
  await db.query(
    `SELECT 1 FROM race_starts r WHERE (r.meeting_id, r.race_number) IN (SELECT * FROM unnest($1::bigint[], $2::int[]))
      ORDER BY r.meeting_id, r.race_number ${LOCKS[mode]}`,
    [races.map((r) => String(r.meetingId)), races.map((r) => r.raceNumber)],
  );
}

/**
 * The races, with their status, whose products `races` would change (another set of products; a
 * race not yet in the catalogue or without products in the file changes none). Locks them
 * (FOR NO KEY UPDATE, in (meeting, race) order, as upsertRaces does) so the status read holds.
 */
export interface ProductChange extends RaceStatusRow { products: string[] }

export async function racesChangingProducts(db: Queryable, races: Array<{ meeting_id: number; race_number: number; products: string[] | null }>): Promise<ProductChange[]> {
  const given = races.filter((r) => r.products !== null);
  if (!given.length) return [];
  const { rows } = await db.query<ProductChange>(
    `SELECT r.meeting_id, r.race_number, r.status, r.products
     FROM race_starts r JOIN unnest($1::bigint[], $2::int[], $3::text[]) AS u(m, n, p) ON r.meeting_id = u.m AND r.race_number = u.n
     WHERE NOT (r.products @> string_to_array(u.p, ',') AND r.products <@ string_to_array(u.p, ','))
     ORDER BY r.meeting_id, r.race_number FOR NO KEY UPDATE OF r`,
    [given.map((r) => r.meeting_id), given.map((r) => r.race_number), given.map((r) => r.products!.join(','))]);
  return rows;
}

/** A race whose runners an import scratches anew (`first`) or gives other deductions. */
export interface ScratchingChange extends RaceStatusRow { first: boolean }

/**
 * The races where `runners` would change a scratching of a runner that exists: scratch it, or
 * change its deductions. Read before upsertRunners, in the transaction that locked the races.
 */
export async function scratchingChanges(db: Queryable, runners: RunnerInput[]): Promise<ScratchingChange[]> {
  const scratched = runners.filter((r) => r.scratched);
  if (!scratched.length) return [];
  const col = <K extends keyof RunnerInput>(k: K) => scratched.map((r) => r[k]);
  const { rows } = await db.query<ScratchingChange>(
    `SELECT u.m AS meeting_id, u.n AS race_number, rs.status, bool_or(NOT x.scratched) AS first
     FROM unnest($1::bigint[], $2::int[], $3::int[], $4::numeric[], $5::numeric[]) AS u(m, n, k, wd, pd)
     JOIN runners x ON x.meeting_id = u.m AND x.race_number = u.n AND x.runner_number = u.k
     JOIN race_starts rs ON rs.meeting_id = u.m AND rs.race_number = u.n
     WHERE NOT x.scratched OR (u.wd IS NOT NULL AND u.wd IS DISTINCT FROM x.win_deduction)
        OR (u.pd IS NOT NULL AND u.pd IS DISTINCT FROM x.place_deduction)
     GROUP BY u.m, u.n, rs.status ORDER BY u.m, u.n`,
    [col('meeting_id'), col('race_number'), col('number'), col('win_deduction'), col('place_deduction')]);
  return rows;
}

/** The races, with their status, to which `runners` would add a runner they do not have yet. */
export async function racesGainingRunners(db: Queryable, runners: RunnerInput[]): Promise<RaceStatusRow[]> {
  if (!runners.length) return [];
  const { rows } = await db.query<RaceStatusRow>(
    `SELECT DISTINCT u.m AS meeting_id, u.n AS race_number, rs.status
     FROM unnest($1::bigint[], $2::int[], $3::int[]) AS u(m, n, k)
     JOIN race_starts rs ON rs.meeting_id = u.m AND rs.race_number = u.n
     WHERE NOT EXISTS (SELECT 1 FROM runners x WHERE x.meeting_id = u.m AND x.race_number = u.n AND x.runner_number = u.k)
     ORDER BY 1, 2`,
    [runners.map((r) => r.meeting_id), runners.map((r) => r.race_number), runners.map((r) => r.number)]);
  return rows;
}

/**
 * Adds or updates runners. A scratching is kept (an import never unscratches); a price not given
 * keeps the current one. Returns how many price changes the trigger recorded in this transaction.
 */
export async function upsertRunners(db: Queryable, runners: RunnerInput[], now: Date): Promise<number> {
  if (!runners.length) return 0;
  const col = <K extends keyof RunnerInput>(k: K) => runners.map((r) => r[k]);
  await db.query(
    `WITH u AS (
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::text[], $5::bool[], $6::numeric[], $7::numeric[],
                            $8::numeric[], $9::bool[], $10::numeric[], $11::bool[]) AS u(m, n, k, name, s, wd, pd, w, wg, pl, pg)),
     changed AS (
       UPDATE runners x SET name = u.name,
         scratched = x.scratched OR u.s,
         scratched_at = CASE WHEN x.scratched THEN x.scratched_at WHEN u.s THEN $12::timestamptz END,
         win_deduction = CASE WHEN u.s THEN coalesce(u.wd, x.win_deduction) ELSE x.win_deduction END,
         place_deduction = CASE WHEN u.s THEN coalesce(u.pd, x.place_deduction) ELSE x.place_deduction END,
         win_price = CASE WHEN u.wg THEN u.w ELSE x.win_price END,
         place_price = CASE WHEN u.pg THEN u.pl ELSE x.place_price END,
         prices_at = CASE WHEN (u.wg AND u.w IS DISTINCT FROM x.win_price) OR (u.pg AND u.pl IS DISTINCT FROM x.place_price) THEN $12::timestamptz ELSE x.prices_at END,
         prices_source = CASE WHEN (u.wg AND u.w IS DISTINCT FROM x.win_price) OR (u.pg AND u.pl IS DISTINCT FROM x.place_price) THEN 'import' ELSE x.prices_source END
       FROM u WHERE x.meeting_id = u.m AND x.race_number = u.n AND x.runner_number = u.k
       RETURNING x.meeting_id, x.race_number, x.runner_number)
     INSERT INTO runners (meeting_id, race_number, runner_number, name, scratched, scratched_at, win_deduction, place_deduction,
                          win_price, place_price, prices_at, prices_source)
     SELECT m, n, k, name, s, CASE WHEN s THEN $12::timestamptz END, wd, pd, w, pl,
            CASE WHEN w IS NOT NULL OR pl IS NOT NULL THEN $12::timestamptz END, 'import'
     FROM u WHERE NOT EXISTS (SELECT 1 FROM changed c WHERE c.meeting_id = u.m AND c.race_number = u.n AND c.runner_number = u.k)
     ORDER BY m, n, k`,
    [col('meeting_id'), col('race_number'), col('number'), col('name'), col('scratched'), col('win_deduction'), col('place_deduction'),
      col('win'), col('win_given'), col('place'), col('place_given'), now],
  );
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM runner_price_history WHERE xmin = pg_current_xact_id()::xid');
  return rows[0]!.n;
}

/** Replaces a meeting's pools. */
export async function replacePools(db: Queryable, meetingId: number, pools: Array<{ product: string; races: number[] }>): Promise<void> {
  await db.query('DELETE FROM meeting_pools WHERE meeting_id = $1', [meetingId]);
  if (!pools.length) return;
  await db.query(
    `INSERT INTO meeting_pools (meeting_id, product, races)
     SELECT $1, p, string_to_array(r, ',')::int[] FROM unnest($2::text[], $3::text[]) AS u(p, r)`,
    [meetingId, pools.map((p) => p.product), pools.map((p) => p.races.join(','))],
  );
}

export async function listPools(db: Queryable, meetingId: number): Promise<Array<{ product: string; races: number[] }>> {
  const { rows } = await db.query<{ product: string; races: number[] }>(
    'SELECT product, races FROM meeting_pools WHERE meeting_id = $1 ORDER BY races[1], product, races', [meetingId]);
  return rows;
}

/** Moves the race to `status` and records the change (the caller holds the race's row lock). */
export async function setStatus(db: Queryable, meetingId: number, raceNumber: number, from: string, status: string, now: Date): Promise<void> {
  await db.query(
    `WITH moved AS (UPDATE race_starts SET status = $4, status_changed_at = $5 WHERE meeting_id = $1 AND race_number = $2)
     INSERT INTO race_status_history (meeting_id, race_number, from_status, to_status, changed_at) VALUES ($1, $2, $3, $4, $5)`,
    [meetingId, raceNumber, from, status, now]);
}

export async function statusHistory(db: Queryable, meetingId: number, raceNumber: number) {
  const { rows } = await db.query<{ from_status: string; to_status: string; changed_at: Date }>(
    'SELECT from_status, to_status, changed_at FROM race_status_history WHERE meeting_id = $1 AND race_number = $2 ORDER BY seq',
    [meetingId, raceNumber]);
  return rows;
}

/** Sets the given prices (undefined: unchanged); the trigger records the change. */
export async function setPrices(db: Queryable, meetingId: number, raceNumber: number, runner: number,
  prices: { win?: string; place?: string }, now: Date): Promise<void> {
  await db.query(
    `UPDATE runners SET win_price = coalesce($4::numeric, win_price), place_price = coalesce($5::numeric, place_price),
       prices_at = $6, prices_source = 'price'
     WHERE meeting_id = $1 AND race_number = $2 AND runner_number = $3
       AND (win_price IS DISTINCT FROM coalesce($4::numeric, win_price) OR place_price IS DISTINCT FROM coalesce($5::numeric, place_price))`,
    [meetingId, raceNumber, runner, prices.win ?? null, prices.place ?? null, now],
  );
}

export async function scratch(db: Queryable, meetingId: number, raceNumber: number, runner: number,
  deductions: { win?: string; place?: string }, now: Date): Promise<void> {
  await db.query(
    `UPDATE runners SET scratched = true, scratched_at = coalesce(scratched_at, $4),
       win_deduction = coalesce($5::numeric, win_deduction), place_deduction = coalesce($6::numeric, place_deduction)
     WHERE meeting_id = $1 AND race_number = $2 AND runner_number = $3`,
    [meetingId, raceNumber, runner, now, deductions.win ?? null, deductions.place ?? null],
  );
}

export async function priceHistory(db: Queryable, meetingId: number, raceNumber: number, runner: number) {
  const { rows } = await db.query<{ changed_at: Date; win_price: string | null; place_price: string | null; source: string | null }>(
    `SELECT changed_at, win_price, place_price, source FROM runner_price_history
     WHERE meeting_id = $1 AND race_number = $2 AND runner_number = $3 ORDER BY seq`,
    [meetingId, raceNumber, runner]);
  return rows;
}
