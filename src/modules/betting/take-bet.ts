// The second half of a placement, once the wallet holds the stake: ONE transaction — the one that
// records the reserve's success (wallet/delivery/reserve.ts) — re-reads the races under a share
// lock (a race closed or a runner scratched meanwhile refuses the bet), applies the tenant's limits
// (all, part or none of the stake), records the outcome, and queues the wallet call that follows a
// reserve: confirm of the accepted amount, or refundBet of the whole. A bet taken is reported to
// the reporting store in that transaction too (Unresulted, no payout).
//
// Several bets on the same races are taken by the same statements when their reserves succeed
// together (the wallet groups them per lane: docs/performance-bets-2026-11-25.md): each statement
// is paid once per group instead of once per bet. The bets are decided one after another, in the
// group's order, against the liability the bets before them added, so a group takes exactly what
// its bets taken one by one would (test/betting-take-group-property.test.ts).
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { centsToDollars, parseDecimal } from '../../racing/money.ts';
import { acceptStake, payoutCents, payoutMultiple, percentageUnits } from '../../racing/stakes.ts';
import type { IntakeService } from '../intake/intake.service.ts';
import type { PlacedBetReport } from '../intake/placed-bets.ts';
import { EveryMemberFails, type WalletCallInput } from '../wallet/wallet.service.ts';
import { betMetadata } from './bet-view.ts';
import * as q from './betting.queries.ts';
import * as lq from './limits.queries.ts';
import { placedBetReport } from './placed-report.ts';
import { lockCatalogue, oddsText, percentageText, priceLocked, type CatalogueReader, type LockedCatalogue, type PlaceBetInput, type Priced } from './placement.ts';

export interface TakeDeps {
  catalogue: CatalogueReader;
  reporting: Pick<IntakeService, 'reportPlacedBets'>;
  clock: () => Date;
  limits: TakeLimits;
}

/**
 * How long taking a bet may wait. A bet pending for longer than placements are given is read as
 * interrupted (BettingDeps.interruptedAfterMs), and whichever of that read and the take comes
 * second finds the bet no longer pending and changes nothing. So that a bet is not first shown
 * interrupted and then taken, a take refuses the bet when more than `startWithinMs` have passed
 * since it was created, checked as it starts and again once it holds its locks, each of which it
 * waits for at most `lockTimeoutMs` (a race held by a scratching or a status change).
 */
export interface TakeLimits {
  startWithinMs: number;
  lockTimeoutMs: number;
}

/** A bet left pending before its take committed (read as interrupted meanwhile): nothing of the take is kept. */
export class NoLongerPending extends Error {}

/** Queues each bet's call after its reserve (calls[i] for bets[i]), in the transaction that records the reserves. */
export type QueueNext = (calls: WalletCallInput[]) => Promise<unknown>;

/** A bet to take: as stored pending, as placed, and as priced before its reserve. */
export interface TakeEntry {
  bet: q.NewBet;
  stored: q.LegRow[];
  input: PlaceBetInput;
  first: Priced;
}

/** The bet as stored once taken or refused, and its legs (a price that changed since the first check, still at least the price seen, is taken at its new value). */
export interface Taken {
  bet: q.BetRow;
  legs: q.LegRow[];
}

/** What the take writes for one bet. */
interface Decision {
  legs: q.LegRow[];
  moved: Array<{ leg: number; price: string }>;
  call: WalletCallInput;
  settling: q.Settling;
  report?: PlacedBetReport;
}

/** PostgreSQL's lock_not_available: a lock waited for longer than lock_timeout. */
export const LOCK_NOT_AVAILABLE = '55P03';

const cents = (text: string | null | undefined): bigint | null => (text === null || text === undefined ? null : parseDecimal(text, 2)!);
const isSingle = (p: Priced) => p.kind === 'WIN' || p.kind === 'PLACE';

function liabilityKey(e: TakeEntry): lq.LiabilityKey {
  const leg = e.input.legs[0]!;
  return { tenantId: e.bet.tenant_id, meetingId: leg.meetingId, raceNumber: leg.raceNumber, runner: leg.selections[0]![0]!, kind: e.first.kind };
}

/** Takes (or refuses) the bets and queues their wallet calls, in the caller's transaction `tx`; one Taken per entry, in order. */
export async function takeBets(deps: TakeDeps, tx: Queryable, entries: TakeEntry[], queueNext: QueueNext): Promise<Taken[]> {
  const inTime = entries.filter((e) => !tooLate(deps, e.bet));
  let locked: LockedCatalogue = { races: new Map(), pools: new Map() };
  if (inTime.length) locked = await lockRaces(deps, tx, entries.length, inTime);
  const priced = new Map(inTime.map((e) => [e, price(locked, e)] as const));
  const keys = inTime.filter((e) => { const p = priced.get(e); return !(p instanceof AppError) && isSingle(p!); }).map(liabilityKey);
  const book = inTime.length ? await lq.lockLiabilities(tx, inTime.map((e) => e.bet.tenant_id), keys) : undefined;
  const now = deps.clock();
  const decisions = entries.map((e) => decide(deps, e, priced.get(e), book, now));
  for (const [i, d] of decisions.entries()) {
    if (d.moved.length) await q.updateLegPrices(tx, entries[i]!.bet.tenant_id, entries[i]!.bet.bet_id, d.moved, now);
  }
  await queueNext(decisions.map((d) => d.call));
  const settled = new Map((await q.settlePlacements(tx, decisions.map((d) => d.settling), now)).map((row) => [row.bet_id, row]));
  const gone = entries.filter((e) => !settled.has(e.bet.bet_id)).map((e) => e.bet.bet_id);
  if (gone.length) throw new NoLongerPending(`bet ${gone.join(', ')} is no longer pending: its placement was settled elsewhere`);
  // One statement: a refused bet is never reported.
  await deps.reporting.reportPlacedBets(tx, decisions.flatMap((d) => (d.report ? [d.report] : [])), now);
  return entries.map((e, i) => ({ bet: settled.get(e.bet.bet_id)!, legs: decisions[i]!.legs }));
}

/**
 * The races of the bets, locked. A group's bets all bet on the same races (one lane): when a race
 * stays locked past the lock timeout, each of them alone would wait as long, so the group tells the
 * wallet to fail every one of them at once (race_busy) rather than take them one by one.
 */
async function lockRaces(deps: TakeDeps, tx: Queryable, groupSize: number, bets: TakeEntry[]): Promise<LockedCatalogue> {
  try {
    return await lockCatalogue(deps.catalogue, tx, bets.map((e) => ({ input: e.input, kind: e.first.kind })));
  } catch (error) {
    if (groupSize > 1 && (error as { code?: string }).code === LOCK_NOT_AVAILABLE) throw new EveryMemberFails(error);
    throw error;
  }
}

/** The bet priced at the locked catalogue, or the refusal. */
function price(locked: LockedCatalogue, e: TakeEntry): Priced | AppError {
  try {
    return priceLocked(locked, e.input, e.first.kind, e.first.stakeCents);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

const tooLate = (deps: TakeDeps, bet: q.NewBet) => deps.clock().getTime() - bet.created_at.getTime() > deps.limits.startWithinMs;

/**
 * One bet's outcome: refused (late, the catalogue's say, or limits leaving nothing), or taken at
 * the stake its limits allow. A bet taken on a runner adds its payout to `book` for the bets after it.
 * A leg whose price changed since the first check is struck `now`, at the price offered now.
 */
function decide(deps: TakeDeps, e: TakeEntry, priced: Priced | AppError | undefined, book: lq.LimitsAndLiabilities | undefined, now: Date): Decision {
  const { bet } = e;
  const late = 'the placement took too long; the stake is returned';
  if (priced === undefined) return refusal(e, e.stored, 'placement_interrupted', late);
  if (priced instanceof AppError) return refusal(e, e.stored, priced.code, priced.message);
  const legs = e.stored.map((l, i) => {
    const price = priced.legPrices[i] ? oddsText(priced.legPrices[i]!) : l.price;
    return price === l.price ? l : { ...l, price, struck_at: now };
  });
  const moved = legs.filter((l, i) => l !== e.stored[i]).map((l) => ({ leg: l.leg, price: l.price! }));
  if (tooLate(deps, bet)) return { ...refusal(e, legs, 'placement_interrupted', late), moved };
  const row = book!.limits.get(bet.tenant_id);
  const limits = { maxStake: cents(row?.max_stake), maxPayout: cents(row?.max_payout), maxRunnerLiability: cents(row?.max_runner_liability) };
  const key = isSingle(priced) ? liabilityKey(e) : null;
  const liability = key ? cents(book!.liabilities.get(lq.liabilityId(key))) : null;
  const pays = priced.odds && payoutMultiple(priced.odds, bet.bonus);
  const { acceptedCents, limit } = acceptStake(priced.stakeCents, limits, pays, liability);
  // A tote bet cut below 0.0001 % a combination would be taken at 0 %: it could win nothing.
  if (acceptedCents === 0n || (priced.percentage !== null && percentageUnits(acceptedCents, priced.combinations) === 0n)) {
    const left = acceptedCents === 0n ? 'nothing of this stake' : `${centsToDollars(acceptedCents)}, below 0.0001 % a combination,`;
    return { ...refusal(e, legs, limit ?? 'limits', `the tenant's ${limit ?? 'limits'} leave ${left} to accept`, limit), moved };
  }
  const accepted = centsToDollars(acceptedCents);
  const status = acceptedCents < priced.stakeCents ? 'partially_accepted' as const : 'accepted' as const;
  const percentage = priced.percentage === null ? null : percentageText(acceptedCents, priced.combinations);
  const odds = oddsText(priced.odds);
  let added: { key: lq.LiabilityKey; amount: string } | undefined;
  if (key && pays) {
    const payout = payoutCents(acceptedCents, pays);
    book!.liabilities.set(lq.liabilityId(key), centsToDollars(liability! + payout));
    added = { key, amount: centsToDollars(payout) };
  }
  return {
    legs, moved,
    call: { tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: 'confirm', amount: accepted, bonusFlag: bet.bonus,
      betMetadata: betMetadata(bet, legs, { status, accepted, percentage, odds }) },
    settling: { tenantId: bet.tenant_id, betId: bet.bet_id, cause: status === 'accepted' ? 'accepted' : 'limits', ...(added && { liability: added }),
      outcome: { status, acceptedStake: accepted, percentage, fixedOdds: odds, betLimit: limit, reasonCode: limit,
        reason: limit ? `partially accepted: the tenant's ${limit} allows ${accepted} of ${bet.stake}` : null } },
    report: placedBetReport({ ...bet, accepted_stake: accepted }, legs, 'Unresulted', null),
  };
}

/** Nothing accepted: the whole reservation goes back with refundBet, in the same transaction. */
function refusal(e: TakeEntry, legs: q.LegRow[], code: string, reason: string, limit: string | null = null): Decision {
  const { bet } = e;
  return {
    legs, moved: [],
    call: { tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: 'refundBet', amount: bet.stake, bonusFlag: bet.bonus },
    settling: { tenantId: bet.tenant_id, betId: bet.bet_id, cause: code, outcome: q.rejection(code, reason, limit) },
  };
}
