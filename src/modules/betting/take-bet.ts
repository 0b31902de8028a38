// The second half of a placement, once the wallet holds the stake: ONE transaction that re-reads
// the races under a share lock (a race closed or a runner scratched meanwhile refuses the bet),
// applies the tenant's limits (all, part or none of the stake), records the outcome, and queues the
// wallet call that follows a reserve: confirm of the accepted amount, or refundBet of the whole.
// A bet taken is reported to the reporting store in that transaction too (Unresulted, no payout).
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { centsToDollars, parseDecimal } from '../../racing/money.ts';
import { acceptStake, payoutCents, type Limits } from '../../racing/stakes.ts';
import type { IntakeService } from '../intake/intake.service.ts';
import type { WalletService } from '../wallet/wallet.service.ts';
import { betMetadata } from './bet-view.ts';
import * as q from './betting.queries.ts';
import { placedBetReport } from './placed-report.ts';
import { oddsText, percentageText, priceBet, type CatalogueReader, type PlaceBetInput, type Priced } from './placement.ts';

interface TakeDeps {
  db: Pool;
  catalogue: CatalogueReader;
  wallet: Pick<WalletService, 'enqueue'>;
  reporting: Pick<IntakeService, 'reportPlacedBets'>;
  clock: () => Date;
}

const cents = (text: string | null | undefined): bigint | null => (text === null || text === undefined ? null : parseDecimal(text, 2)!);

async function limitsOf(tx: Queryable, tenantId: string): Promise<Limits> {
  const row = await q.findLimits(tx, tenantId);
  return { maxStake: cents(row?.max_stake), maxPayout: cents(row?.max_payout), maxRunnerLiability: cents(row?.max_runner_liability) };
}

/**
 * Takes the bet (or refuses it) and queues its wallet call; a refusal by the wallet's guard rolls
 * back. Returns the legs as stored: a price that rose since the first check is taken at its new value.
 */
export async function takeBet(deps: TakeDeps, bet: q.NewBet, legs: q.LegRow[], input: PlaceBetInput, first: Priced): Promise<q.LegRow[]> {
  try {
    return await withTransaction(deps.db, (tx) => decide(deps, tx, bet, legs, input, first));
  } catch (error) {
    // The placement window ran out and the guard released the reservation: the bet is not taken.
    if (!(error instanceof AppError && error.code === 'wallet_reservation_released')) throw error;
    await withTransaction(deps.db, (tx) => q.settlePlacement(tx, bet.tenant_id, bet.bet_id, {
      status: 'rejected', acceptedStake: '0.00', percentage: null, fixedOdds: null, betLimit: null,
      reasonCode: 'placement_timeout', reason: 'the placement took too long; the reservation was released',
    }, deps.clock(), 'placement_timeout'));
    return legs;
  }
}

async function decide(deps: TakeDeps, tx: Queryable, bet: q.NewBet, stored: q.LegRow[], input: PlaceBetInput, first: Priced): Promise<q.LegRow[]> {
  const now = deps.clock();
  let priced: Priced;
  try {
    priced = await priceBet(deps.catalogue, input, first.kind, first.stakeCents, tx);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await refuse(deps, tx, bet, error.code, error.message, now);
    return stored;
  }
  const legs = await takenPrices(tx, bet, stored, priced);
  const single = priced.kind === 'WIN' || priced.kind === 'PLACE';
  const leg = input.legs[0]!;
  const liabilityKey = { tenantId: bet.tenant_id, meetingId: leg.meetingId, raceNumber: leg.raceNumber, runner: leg.selections[0]![0]!, kind: priced.kind };
  const liability = single ? cents(await q.lockLiability(tx, liabilityKey)) : null;
  const { acceptedCents, limit } = acceptStake(priced.stakeCents, await limitsOf(tx, bet.tenant_id), priced.odds, liability);
  if (acceptedCents === 0n) {
    await refuse(deps, tx, bet, limit ?? 'limits', `the tenant's ${limit ?? 'limits'} leave nothing of this stake to accept`, now, limit);
    return legs;
  }
  const accepted = centsToDollars(acceptedCents);
  const status = acceptedCents < priced.stakeCents ? 'partially_accepted' as const : 'accepted' as const;
  const percentage = priced.percentage === null ? null : percentageText(acceptedCents, priced.combinations);
  const odds = oddsText(priced.odds);
  if (single && priced.odds) await q.addLiability(tx, liabilityKey, centsToDollars(payoutCents(acceptedCents, priced.odds)));
  await deps.wallet.enqueue(tx, {
    tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: 'confirm', amount: accepted, bonusFlag: bet.bonus,
    betMetadata: betMetadata(bet, legs, { status, accepted, percentage, odds }),
  });
  await settleOrRollBack(tx, bet, {
    status, acceptedStake: accepted, percentage, fixedOdds: odds, betLimit: limit,
    reasonCode: limit, reason: limit ? `partially accepted: the tenant's ${limit} allows ${accepted} of ${bet.stake}` : null,
  }, now, status === 'accepted' ? 'accepted' : 'limits');
  // One statement: a refused bet never gets here, so it is never reported.
  await deps.reporting.reportPlacedBets(tx, [placedBetReport({ ...bet, accepted_stake: accepted }, legs, 'Unresulted', null)], now);
  return legs;
}

/** The legs at the prices taken now, under the lock; a leg whose price rose is stored again. */
async function takenPrices(tx: Queryable, bet: q.NewBet, stored: q.LegRow[], priced: Priced): Promise<q.LegRow[]> {
  const legs = stored.map((l, i) => (priced.legPrices[i] ? { ...l, price: oddsText(priced.legPrices[i]!) } : l));
  const moved = legs.filter((l, i) => l.price !== stored[i]!.price);
  if (moved.length) await q.updateLegPrices(tx, bet.tenant_id, bet.bet_id, moved.map((l) => ({ leg: l.leg, price: l.price! })));
  return legs;
}

/** Records the outcome; a bet no longer pending (read as interrupted meanwhile) rolls the wallet call back. */
async function settleOrRollBack(tx: Queryable, bet: q.NewBet, outcome: q.Outcome, now: Date, cause: string): Promise<void> {
  if (!(await q.settlePlacement(tx, bet.tenant_id, bet.bet_id, outcome, now, cause))) {
    throw new Error(`bet ${bet.bet_id} is no longer pending: its placement was settled elsewhere`);
  }
}

/** Nothing accepted: the whole reservation goes back with refundBet, in the same transaction. */
async function refuse(deps: TakeDeps, tx: Queryable, bet: q.NewBet, code: string, reason: string, now: Date, limit: string | null = null): Promise<void> {
  await deps.wallet.enqueue(tx, { tenantId: bet.tenant_id, betId: bet.bet_id, userId: bet.user_id, op: 'refundBet', amount: bet.stake, bonusFlag: bet.bonus });
  await settleOrRollBack(tx, bet, {
    status: 'rejected', acceptedStake: '0.00', percentage: null, fixedOdds: null, betLimit: limit, reasonCode: code, reason,
  }, now, code);
}
