// What a bet is owed, from the facts of its races: still open, refunded in full, or settled with a
// payout (and, for tote bets, a partial refund of the combinations a scratching took away). Pure
// and exact: every amount is a Fraction until the one rounding, down to the cent, at the end. The
// rules and their sources are in docs/settlement.md; racing/bet-ledger.ts turns a verdict into the
// wallet calls still owed.
import { KIND_RULES } from './bet-kinds.ts';
import { add, cents, decimalText, floorCents, fraction, max, min, mul, ONE, product, sub, ZERO, type Fraction } from './exact.ts';
import { shareWithin } from './results.ts';
import { settleTote } from './settle-tote.ts';
import type { RaceFacts, SettleBet, Verdict } from './settle-facts.ts';

export { MissingDividendError, type RaceFacts, type Scratching, type SettleBet, type SettleLeg, type Verdict } from './settle-facts.ts';

const HUNDRED = fraction(100n);

/** Sum of the deductions of runners scratched after the leg's price was struck, capped at 100 %. */
export function deductionPercent(race: RaceFacts, struckAt: Date, which: 'win' | 'place'): Fraction {
  let total = ZERO;
  for (const s of race.scratched.values()) {
    const value = which === 'win' ? s.winDeduction : s.placeDeduction;
    if (value !== null && s.at.getTime() > struckAt.getTime()) total = add(total, decimalText(value));
  }
  return min(total, HUNDRED);
}

/** The money of a winning stake: the return (stake back + winnings), or winnings only for a bonus bet. */
export function paid(stakeInPlay: Fraction, odds: Fraction, bonus: boolean): bigint {
  const returned = mul(stakeInPlay, odds);
  return floorCents(bonus ? max(sub(returned, stakeInPlay), ZERO) : returned);
}

/** Odds after a deduction of `percent` from the winnings (never from the stake): 1 + (odds − 1) × (1 − d). */
export function deducted(odds: Fraction, percent: Fraction): Fraction {
  return add(ONE, mul(sub(odds, ONE), sub(ONE, mul(percent, fraction(1n, 100n)))));
}

function settleSingle(bet: SettleBet): Verdict {
  const leg = bet.legs[0]!;
  const runner = leg.selections[0]![0]!;
  if (leg.race.status === 'abandoned') return { state: 'refund', reason: 'race_abandoned' };
  if (leg.race.scratched.has(runner)) return { state: 'refund', reason: 'runner_scratched' };
  if (leg.race.status !== 'final' || !leg.race.placings) return { state: 'open' };
  const place = bet.kind === 'PLACE';
  if (place && leg.race.placesPaid === 0) return { state: 'refund', reason: 'no_place_betting' };
  const [shares, of] = shareWithin(runner, leg.race.placings, place ? leg.race.placesPaid : 1);
  if (shares === 0) return { state: 'settled', won: false, payoutCents: 0n, partialRefundCents: 0n, reason: 'lost' };
  const stakeInPlay = mul(cents(bet.acceptedCents), fraction(BigInt(shares), BigInt(of)));
  const odds = deducted(decimalText(leg.price!), deductionPercent(leg.race, leg.struckAt, place ? 'place' : 'win'));
  return { state: 'settled', won: true, payoutCents: paid(stakeInPlay, odds, bet.bonus), partialRefundCents: 0n, reason: shares < of ? 'dead_heat' : 'won' };
}

/** Whether a multi's leg is void (it counts 1.00): its runner scratched, or its race abandoned. */
export function voidLeg(leg: SettleBet['legs'][number]): boolean {
  return leg.race.status === 'abandoned' || leg.race.scratched.has(leg.selections[0]![0]!);
}

/** A multi: the product of its legs; a void leg (runner scratched, race abandoned) counts 1.00, a
 * lost leg loses the bet, every leg void refunds it. Settled once every leg still in play is final. */
function settleMulti(bet: SettleBet): Verdict {
  const live = bet.legs.filter((l) => !voidLeg(l));
  if (live.length === 0) return { state: 'refund', reason: bet.legs.some((l) => l.race.status === 'abandoned') ? 'race_abandoned' : 'runner_scratched' };
  if (live.some((l) => l.race.status !== 'final' || !l.race.placings)) return { state: 'open' };
  const shares: Fraction[] = [];
  const odds: Fraction[] = [];
  for (const leg of live) {
    const [share, of] = shareWithin(leg.selections[0]![0]!, leg.race.placings!, 1);
    if (share === 0) return { state: 'settled', won: false, payoutCents: 0n, partialRefundCents: 0n, reason: 'lost' };
    shares.push(fraction(BigInt(share), BigInt(of)));
    odds.push(deducted(decimalText(leg.price!), deductionPercent(leg.race, leg.struckAt, 'win')));
  }
  const stakeInPlay = mul(cents(bet.acceptedCents), product(shares));
  const deadHeat = shares.some((s) => s.n !== s.d);
  return { state: 'settled', won: true, payoutCents: paid(stakeInPlay, product(odds), bet.bonus), partialRefundCents: 0n, reason: deadHeat ? 'dead_heat' : 'won' };
}

/** What the bet is owed now. Throws MissingDividendError when a final result lacks a needed dividend. */
export function settle(bet: SettleBet): Verdict {
  if (bet.acceptedCents <= 0n) throw new RangeError('only a taken bet (accepted stake above 0) is settled');
  if (bet.kind === 'WIN' || bet.kind === 'PLACE') return settleSingle(bet);
  if (bet.kind === 'MULTI') return settleMulti(bet);
  if (KIND_RULES[bet.kind].pricing !== 'tote') throw new RangeError(`no settlement rule for ${bet.kind}`);
  return settleTote(bet);
}
