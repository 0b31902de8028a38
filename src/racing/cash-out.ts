// The most an open fixed-odds bet may be cashed out for, on the facts of its races now: what it
// returns if everything still to be decided goes its way. A bet whose fate is decided — its race
// resulted (final: settlement is about to pay or close it; interim: the final result will), abandoned
// or its runner scratched (it is to be refunded), or a multi with a leg already lost or every leg
// decided — is not cashed out at all: a cash out would pay a dead bet. Every leg counts at its odds
// less the late deductions already declared after it was struck, a multi's legs already won at their
// dead-heat share too, its void legs (runner scratched, race abandoned) at 1.00: as settlement will
// count them (racing/settle.ts). A place bet in a field too small for place betting (no places
// paid by the starters now) counts at 1.00: settlement refunds it.
import { cents, decimalText, fraction, mul, ONE, product, type Fraction } from './exact.ts';
import { shareWithin } from './results.ts';
import { deducted, deductionPercent, paid, voidLeg, type SettleBet } from './settle.ts';

export type CashOutLimit = { mostCents: bigint } | { refusal: string };

export function cashOutLimit(bet: SettleBet): CashOutLimit {
  if (bet.kind !== 'MULTI') {
    const leg = bet.legs[0]!;
    if (leg.race.status === 'abandoned') return { refusal: 'its race was abandoned: the bet is refunded' };
    if (leg.race.scratched.has(leg.selections[0]![0]!)) return { refusal: 'its runner is scratched: the bet is refunded' };
    if (leg.race.status === 'final') return { refusal: 'its race has a final result: the bet is being settled' };
    if (leg.race.status === 'interim') return { refusal: 'its race has an interim result: the bet is settled on its final result' };
    const place = bet.kind === 'PLACE';
    // A field too small for place betting refunds a place bet: its stake back (odds 1.00) at most.
    const odds = place && leg.race.placesPaid === 0 ? ONE : deducted(decimalText(leg.price!), deductionPercent(leg.race, leg.struckAt, place ? 'place' : 'win'));
    return { mostCents: paid(cents(bet.acceptedCents), odds, bet.bonus) };
  }
  const shares: Fraction[] = [];
  const odds: Fraction[] = [];
  let live = 0;
  let decided = 0;
  for (const [i, leg] of bet.legs.entries()) {
    const runner = leg.selections[0]![0]!;
    if (voidLeg(leg)) continue;
    live += 1;
    if (leg.race.status === 'interim') return { refusal: `the race of leg ${i + 1} has an interim result: cash out waits for its final result` };
    if (leg.race.status === 'final' && leg.race.placings) {
      const [share, of] = shareWithin(runner, leg.race.placings, 1);
      if (share === 0) return { refusal: `leg ${i + 1} has lost: the bet returns nothing` };
      shares.push(fraction(BigInt(share), BigInt(of)));
      decided += 1;
    }
    odds.push(deducted(decimalText(leg.price!), deductionPercent(leg.race, leg.struckAt, 'win')));
  }
  if (live === 0) return { refusal: 'every leg is void (runner scratched or race abandoned): the bet is refunded' };
  if (decided === live) return { refusal: 'every leg still in play has a final result: the bet is being settled' };
  return { mostCents: paid(mul(cents(bet.acceptedCents), product(shares)), product(odds), bet.bonus) };
}
