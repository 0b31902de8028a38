// Writing a checked catalogue file (docs/catalogue.md, The file): meetings, races, runners and
// pools in the import's transaction. A scratching in the file is a scratching like `race scratch`:
// taken only while its race takes scratchings, and a first one queues the race's settlement; a
// price is a price like `race price`: changed only while its race trades.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { acceptsPrices, acceptsScratchings, RACE_STATUSES, type RaceStatus } from '../../racing/race-status.ts';
import { SHARED_LAST_RACE, type CatalogMeeting } from './catalog-import.ts';
import * as q from './catalogue.queries.ts';
import { repricedRaces, type Repricing } from './price-checks.queries.ts';
import * as rq from './races.queries.ts';

export interface ImportResult { imported: number; races: number; runners: number; price_changes: number; pools: number }

/** A change of a race that settles bets: told to settlement in the transaction that makes it. */
export interface RaceChange {
  meetingId: number;
  raceNumber: number;
  cause: 'result' | 'amendment' | 'abandoned' | 'scratching';
}

export type OnRaceChange = (tx: Queryable, change: RaceChange) => Promise<void>;
/** The race products bets still to settle need, by "meeting/race" (betting answers it: services.ts). */
export type ProductsInPlay = (tx: Queryable, races: Array<{ meetingId: number; raceNumber: number }>) => Promise<Map<string, string[]>>;

/** The pools of quaddies and daily doubles still to settle that end on one of `races` (betting answers it). */
export type PoolsInPlay = (tx: Queryable, races: Array<{ meetingId: number; raceNumber: number }>) =>
  Promise<Array<{ meetingId: number; product: string; races: number[] }>>;

export interface WriteHooks {
  clock: () => Date;
  changed: OnRaceChange;
  productsInPlay: ProductsInPlay;
  poolsInPlay: PoolsInPlay;
}

/** The statuses a race's prices may change in (open, suspended): after, they are the record of what was offered. */
const TRADING = RACE_STATUSES.filter(acceptsPrices);

export async function writeMeetings(tx: Queryable, meetings: CatalogMeeting[], { clock, changed, productsInPlay, poolsInPlay }: WriteHooks): Promise<ImportResult> {
  await q.upsertMeetings(tx, [...meetings].sort((a, b) => a.meeting_id - b.meeting_id));
  const races = meetings.flatMap((m) => m.races.map((r) => ({ meeting_id: m.meeting_id, race_number: r.race_number, start_time: r.start_time, products: r.products ?? null })));
  // The upsert locks the races it updates: their statuses hold until the commit. The time of its
  // scratchings and prices is read once it holds them, as `race scratch` does: a take holding a
  // race before it then struck its bets earlier (docs/settlement.md, Late-scratching deductions).
  // Read before the upsert overwrites them: a race past taking bets keeps its products (below).
  // Every race of the file first, in (meeting, race) order: locking the races whose products change
  // before the others would hold a later race while waiting for an earlier one that a take of a
  // multi holds on its way to the later one — a deadlock.
  await rq.lockRaces(tx, races.map((r) => ({ meetingId: r.meeting_id, raceNumber: r.race_number })), 'update');
  const productChanges = await refusedProductChanges(tx, await rq.racesChangingProducts(tx, races), races, productsInPlay);
  await rq.upsertRaces(tx, races);
  const now = clock();
  const runners = meetings.flatMap((m) => m.races.flatMap((r) => r.runners.map((x) => ({
    meeting_id: m.meeting_id, race_number: r.race_number, number: x.number, name: x.name, scratched: x.scratched === true,
    win_deduction: x.win_deduction ?? null, place_deduction: x.place_deduction ?? null,
    win: x.win ?? null, win_given: x.win !== undefined, place: x.place ?? null, place_given: x.place !== undefined,
  }))));
  const scratchings = await rq.scratchingChanges(tx, runners);
  const repriced = await repricedRaces(tx, runners, TRADING);
  refuseLateChanges(scratchings, await rq.racesGainingRunners(tx, runners), productChanges, repriced);
  const priceChanges = await rq.upsertRunners(tx, runners, now);
  for (const race of scratchings.filter((s) => s.first)) {
    await changed(tx, { meetingId: Number(race.meeting_id), raceNumber: race.race_number, cause: 'scratching' });
  }
  await refuseSharedLastRaces(tx, meetings, poolsInPlay);
  let pools = 0;
  for (const m of meetings) {
    if (!m.pools) continue;
    await rq.replacePools(tx, m.meeting_id, m.pools);
    pools += m.pools.length;
  }
  return { imported: meetings.length, races: races.length, runners: runners.length, price_changes: priceChanges, pools };
}

/**
 * A pool the file gives whose product and last race are those of another set of races that bets
 * still to settle were placed on (a pool the meeting had before): both would be settled by the
 * dividends declared on that race, each pool's winners paid the other's. The whole file is refused.
 */
async function refuseSharedLastRaces(tx: Queryable, meetings: CatalogMeeting[], poolsInPlay: PoolsInPlay): Promise<void> {
  const given: Array<{ meetingId: number; at: string; product: string; races: number[] }> = [];
  for (const m of meetings.filter((x) => x.pools?.length)) {
    // A pool the meeting has already was checked when it came (a feed repeats its pools): only new ones are looked up.
    const current = new Set((await rq.listPools(tx, m.meeting_id)).map((p) => `${p.product}:${p.races.join(',')}`));
    m.pools!.forEach((pool, i) => {
      if (!current.has(`${pool.product}:${pool.races.join(',')}`)) given.push({ meetingId: m.meeting_id, at: `pools/${i}`, ...pool });
    });
  }
  if (!given.length) return;
  const inPlay = await poolsInPlay(tx, given.map((p) => ({ meetingId: p.meetingId, raceNumber: p.races.at(-1)! })));
  for (const pool of given) {
    const other = inPlay.find((o) => o.meetingId === pool.meetingId && o.product === pool.product
      && o.races.at(-1) === pool.races.at(-1) && o.races.join(',') !== pool.races.join(','));
    if (!other) continue;
    const last = pool.races.at(-1)!;
    throw new AppError('conflict', `nothing imported: meeting ${pool.meetingId}: ${pool.at} (${pool.product} of races ${pool.races.join(', ')}) ends on race ${last} `
      + `as the ${other.product} of races ${other.races.join(', ')} does, which has bets still to settle on race ${last}'s dividends: ${SHARED_LAST_RACE(pool.product)}`);
  }
}

/**
 * The product changes (`changes`: races whose products the file changes) the file may not make:
 * any on a race past taking bets (closed and after), whose bets were taken on the products it had;
 * on an open race, one dropping a product bets still to settle need — a result takes dividends
 * only for the race's products, so those bets would wait for ever.
 */
async function refusedProductChanges(tx: Queryable, changes: rq.ProductChange[], races: Array<{ meeting_id: number; race_number: number; products: string[] | null }>,
  productsInPlay: ProductsInPlay): Promise<rq.ProductChange[]> {
  const open = changes.filter((c) => acceptsPrices(c.status as RaceStatus));
  const closed = changes.filter((c) => !open.includes(c));
  if (!open.length) return closed;
  const key = (meetingId: number | string, raceNumber: number) => `${Number(meetingId)}/${raceNumber}`;
  const needed = await productsInPlay(tx, open.map((c) => ({ meetingId: Number(c.meeting_id), raceNumber: c.race_number })));
  const given = new Map(races.map((r) => [key(r.meeting_id, r.race_number), r.products ?? []]));
  const dropping = open.filter((c) => (needed.get(key(c.meeting_id, c.race_number)) ?? []).some((p) => !given.get(key(c.meeting_id, c.race_number))!.includes(p)));
  return [...closed, ...dropping];
}

/**
 * A new scratching, new deductions or a new runner on a race past taking scratchings (interim,
 * final, abandoned) would re-settle bets already paid on a feed's say (a runner more is a starter
 * more: the places paid can change): the whole file is refused, as `race scratch` refuses it. So
 * are the product changes refusedProductChanges found: on a race past taking bets a product dropped
 * would let a result leave its bets' positions unlisted, settled as losers. So is a price changed on
 * a race past suspended, as `race price` refuses it: the prices are the record of what was offered
 * (bets keep their struck price, but reports and the price history would show prices never
 * offered). A file that repeats the race as it stands changes nothing of it and passes.
 */
function refuseLateChanges(scratchings: rq.RaceStatusRow[], gaining: rq.RaceStatusRow[], reproduced: rq.RaceStatusRow[], repriced: Repricing[]): void {
  const late = (list: rq.RaceStatusRow[]) => list.filter((c) => !acceptsScratchings(c.status as RaceStatus));
  const [scratched, added] = [late(scratchings), late(gaining)];
  if (!scratched.length && !added.length && !reproduced.length && !repriced.length) return;
  const name = (c: rq.RaceStatusRow) => `race ${c.race_number} of meeting ${c.meeting_id} (${c.status})`;
  const runners = (list: number[]) => `${list.length > 1 ? 'runners' : 'runner'} ${list.join(', ')}`;
  const problems = [
    ...repriced.map((c) => `changes the prices of ${runners(c.runners)} in ${name(c)}`),
    ...scratched.map((c) => `scratches runners or changes deductions in ${name(c)}`),
    ...added.map((c) => `adds runners to ${name(c)}`),
    ...reproduced.map((c) => `changes the products of ${name(c)}${acceptsPrices(c.status as RaceStatus) ? ', dropping one its bets still to settle need' : ''}`),
  ];
  const seen = new Set<string>();
  const races = [...repriced, ...scratched, ...added, ...reproduced]
    .map((c) => ({ meeting_id: Number(c.meeting_id), race_number: c.race_number, status: c.status }))
    .filter((r) => !seen.has(`${r.meeting_id}/${r.race_number}`) && seen.add(`${r.meeting_id}/${r.race_number}`));
  throw new AppError('race_not_trading', `nothing imported: the file ${problems.join('; ')}; a race's runners change only until it is resulted, `
    + 'its products and prices only until it closes (and never a product its bets need)', { extensions: { races } });
}
