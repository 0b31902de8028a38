// SQL of the import's price check: prices are the record of what was offered, so a file may change
// them only on a race still trading (docs/catalogue.md, Prices and deductions).
import type { Queryable } from '../../db/pool.ts';
import type { RaceStatusRow, RunnerInput } from './races.queries.ts';

/** A race, with its status, where a file would change the prices of `runners` (their numbers). */
export interface Repricing extends RaceStatusRow { runners: number[] }

/**
 * The races not in one of `trading` statuses where `runners` would change a price: a given price
 * other than the stored one (compared as numbers: "3.5" is 3.50), a price cleared, or a price for a
 * runner the race does not have yet (never offered). Read in the transaction that locked the races.
 */
export async function repricedRaces(db: Queryable, runners: RunnerInput[], trading: readonly string[]): Promise<Repricing[]> {
  const priced = runners.filter((r) => r.win_given || r.place_given);
  if (!priced.length) return [];
  const col = <K extends keyof RunnerInput>(k: K) => priced.map((r) => r[k]);
  const { rows } = await db.query<Repricing>(
    `SELECT u.m AS meeting_id, u.n AS race_number, rs.status, array_agg(u.k ORDER BY u.k) AS runners
     FROM unnest($1::bigint[], $2::int[], $3::int[], $4::numeric[], $5::bool[], $6::numeric[], $7::bool[]) AS u(m, n, k, w, wg, pl, pg)
     JOIN race_starts rs ON rs.meeting_id = u.m AND rs.race_number = u.n
     LEFT JOIN runners x ON x.meeting_id = u.m AND x.race_number = u.n AND x.runner_number = u.k
     WHERE rs.status <> ALL($8::text[])
       AND ((u.wg AND u.w IS DISTINCT FROM x.win_price) OR (u.pg AND u.pl IS DISTINCT FROM x.place_price))
     GROUP BY u.m, u.n, rs.status ORDER BY u.m, u.n`,
    [col('meeting_id'), col('race_number'), col('number'), col('win'), col('win_given'), col('place'), col('place_given'), trading]);
  return rows;
}
