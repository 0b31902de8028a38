// The second half of a placement, once the wallet holds the stake: ONE transaction — the one that
// records the reserve's success (wallet/delivery/reserve.ts) — re-reads the races under a share
// lock (a race closed or a runner scratched meanwhile refuses the bet), applies the tenant's limits
// (all, part or none of the stake), records the outcome, and queues the wallet call that follows a
// reserve: confirm of the accepted amount, or refundBet of the whole. A bet taken is reported to
// the reporting store in that transaction too (Unresulted, no payout).
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { centsToDollars, parseDecimal } from '../../racing/money.ts';
import { acceptStake, payoutCents, type Limits } from '../../racing/stakes.ts';
import type { IntakeService } from '../intake/intake.service.ts';
import type { WalletCallInput } from '../wallet/wallet.service.ts';
import { betMetadata } from './bet-view.ts';
import * as q from './betting.queries.ts';
import { placedBetReport } from './placed-report.ts';
import { oddsText, percentageText, priceBet, type CatalogueReader, type PlaceBetInput, type Priced } from './placement.ts';

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

/** The bet left pending before its take committed (read as interrupted meanwhile): nothing of the take is kept. */
export class NoLongerPending extends Error {}

/** Queues the bet's call after its reserve, in the transaction that records the reserve. */
export type QueueNext = (call: WalletCallInput) => Promise<unknown>;

const cents = (text: string | null | undefined): bigint | null => (text === null || text === undefined ? null : parseDecimal(text, 2)!);

/** The tenant's limits, and (a single bet) its runner's liability, locked for this transaction. */
async function liabilityAndLimits(tx: Queryable, tenantId: string, key: q.LiabilityKey | null): Promise<{ liability: bigint | null; limits: Limits }> {
  const row = key ? await q.lockLiabilityWithLimits(tx, key) : { liability: null, ...await q.findLimits(tx, tenantId) };
  const limits = { maxStake: cents(row?.max_stake), maxPayout: cents(row?.max_payout), maxRunnerLiability: cents(row?.max_runner_liability) };
  return { liability: cents(row.liability), limits };
}

/** The bet as stored once taken or refused, and its legs (a price that rose since the first check is taken at its new value). */
export interface Taken {
  bet: q.BetRow;
  legs: q.LegRow[];
}

/** Takes the bet (or refuses it) and queues its wallet call, in the caller's transaction `tx`. */
export async function takeBet(deps: TakeDeps, tx: Queryable, queueNext: QueueNext, bet: q.NewBet, stored: q.LegRow[], input: PlaceBetInput, first: Priced): Promise<Taken> {
  const now = deps.clock();
  if (tooLate(deps, bet)) return { bet: await refuseLate(tx, queueNext, bet, now), legs: stored };
  let priced: Priced;
  try {
    priced = await priceBet(deps.catalogue, input, first.kind, first.stakeCents, tx);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { bet: await refuse(tx, queueNext, bet, error.code, error.message, now), legs: stored };
  }
  const legs = await takenPrices(tx, bet, stored, priced);
  const single = priced.kind === 'WIN' || priced.kind === 'PLACE';
  const leg = input.legs[0]!;
  const liabilityKey = { tenantId: bet.tenant_id, meetingId: leg.meetingId, raceNumber: leg.raceNumber, runner: leg.selections[0]![0]!, kind: priced.kind };
  const { liability, limits } = await liabilityAndLimits(tx, bet.tenant_id, single ? liabilityKey : null);
  if (tooLate(deps, bet)) return { bet: await refuseLate(tx, queueNext, bet, now), legs };
  const { acceptedCents, limit } = acceptStake(priced.stakeCents, limits, priced.odds, liability);
  if (acceptedCents === 0n) {
    const reason = `the tenant's ${limit ?? 'limits'} leave nothing of this stake to accept`;
    return { bet: await refuse(tx, queueNext, bet, limit ?? 'limits', reason, now, limit), legs };
  }
  const accepted = centsToDollars(acceptedCents);
  const status = acceptedCents < priced.stakeCents ? 'partially_accepted' as const : 'accepted' as const;
  const percentage = priced.percentage === null ? null : percentageText(acceptedCents, priced.combinations);
  const odds = oddsText(priced.odds);
  await queueNext({
    tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: 'confirm', amount: accepted, bonusFlag: bet.bonus,
    betMetadata: betMetadata(bet, legs, { status, accepted, percentage, odds }),
  });
  const taken = await settleOrRollBack(tx, bet, {
    status, acceptedStake: accepted, percentage, fixedOdds: odds, betLimit: limit,
    reasonCode: limit, reason: limit ? `partially accepted: the tenant's ${limit} allows ${accepted} of ${bet.stake}` : null,
  }, now, status === 'accepted' ? 'accepted' : 'limits',
  single && priced.odds ? { key: liabilityKey, amount: centsToDollars(payoutCents(acceptedCents, priced.odds)) } : undefined);
  // One statement: a refused bet never gets here, so it is never reported.
  await deps.reporting.reportPlacedBets(tx, [placedBetReport({ ...bet, accepted_stake: accepted }, legs, 'Unresulted', null)], now);
  return { bet: taken, legs };
}

const tooLate = (deps: TakeDeps, bet: q.NewBet) => deps.clock().getTime() - bet.created_at.getTime() > deps.limits.startWithinMs;

const refuseLate = (tx: Queryable, queueNext: QueueNext, bet: q.NewBet, now: Date) =>
  refuse(tx, queueNext, bet, 'placement_interrupted', 'the placement took too long; the stake is returned', now);

/** The legs at the prices taken now, under the lock; a leg whose price rose is stored again. */
async function takenPrices(tx: Queryable, bet: q.NewBet, stored: q.LegRow[], priced: Priced): Promise<q.LegRow[]> {
  const legs = stored.map((l, i) => (priced.legPrices[i] ? { ...l, price: oddsText(priced.legPrices[i]!) } : l));
  const moved = legs.filter((l, i) => l.price !== stored[i]!.price);
  if (moved.length) await q.updateLegPrices(tx, bet.tenant_id, bet.bet_id, moved.map((l) => ({ leg: l.leg, price: l.price! })));
  return legs;
}

/** Records the outcome; a bet no longer pending (read as interrupted meanwhile) rolls the wallet call back. */
async function settleOrRollBack(tx: Queryable, bet: q.NewBet, outcome: q.Outcome, now: Date, cause: string,
  liability?: { key: q.LiabilityKey; amount: string }): Promise<q.BetRow> {
  const settled = await q.settlePlacement(tx, bet.tenant_id, bet.bet_id, outcome, now, cause, liability);
  if (!settled) throw new NoLongerPending(`bet ${bet.bet_id} is no longer pending: its placement was settled elsewhere`);
  return settled;
}

/** Nothing accepted: the whole reservation goes back with refundBet, in the same transaction. */
async function refuse(tx: Queryable, queueNext: QueueNext, bet: q.NewBet, code: string, reason: string, now: Date, limit: string | null = null): Promise<q.BetRow> {
  await queueNext({ tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: 'refundBet', amount: bet.stake, bonusFlag: bet.bonus });
  return settleOrRollBack(tx, bet, {
    status: 'rejected', acceptedStake: '0.00', percentage: null, fixedOdds: null, betLimit: limit, reasonCode: code, reason,
  }, now, code);
}
