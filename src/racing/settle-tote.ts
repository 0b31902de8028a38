// Tote bets (exotics, quaddie, daily double): each winning combination the bet covers pays its
// declared dividend × percentage ÷ 100 (dividends are per $1 unit; a dead heat has several winning
// combinations, each with the dividend declared for it). Combinations holding a scratched runner
// are refunded as their share of the stake; all of them: the whole stake. docs/settlement-tote.md.
import { KIND_RULES } from './bet-kinds.ts';
import { combinations } from './combinations.ts';
import { add, cents, decimalText, floorCents, fraction, max, mul, sub, ZERO, type Fraction } from './exact.ts';
import { winningOrders, winners, type DividendEntry, type ToteProduct } from './results.ts';
import { MissingDividendError, type SettleBet, type SettleLeg, type Verdict } from './settle-facts.ts';

/** The selection without the runners scratched from each leg's race. */
function live(legs: SettleLeg[]): number[][][] {
  return legs.map((leg) => leg.selections.map((list) => list.filter((runner) => !leg.race.scratched.has(runner))));
}

/** Whether a single-race exotic's selection covers the finishing order `order`. */
function coversOrder(bet: SettleBet, positions: number[][], order: number[]): boolean {
  const rule = KIND_RULES[bet.kind];
  if (bet.boxed || positions.length === 1) return order.every((runner) => positions[0]!.includes(runner));
  const straight = order.every((runner, i) => positions[i]!.includes(runner));
  return straight || (!rule.ordered && positions[0]!.includes(order[1]!) && positions[1]!.includes(order[0]!));
}

/** The winning combinations a bet can hold: ordered for exacta-like products, unordered for a quinella. */
function winningCombinations(bet: SettleBet): number[][] {
  if (KIND_RULES[bet.kind].legs !== 1) {
    return bet.legs.reduce<number[][]>((acc, leg) => acc.flatMap((c) => winners(leg.race.placings!).map((w) => [...c, w])), [[]]);
  }
  const orders = winningOrders(bet.legs[0]!.race.placings!, KIND_RULES[bet.kind].positions);
  if (KIND_RULES[bet.kind].ordered) return orders;
  const unique = new Map(orders.map((o) => [[...o].sort((a, b) => a - b).join('-'), o]));
  return [...unique.values()];
}

function covers(bet: SettleBet, selection: number[][][], combination: number[]): boolean {
  if (KIND_RULES[bet.kind].legs !== 1) return combination.every((runner, leg) => selection[leg]![0]!.includes(runner));
  return coversOrder(bet, selection[0]!, combination);
}

/** The dividend declared for `combination`: its own entry first, else the product's general one. */
function dividendOf(product: ToteProduct, entries: DividendEntry[] | undefined, combination: number[], ordered: boolean): Fraction {
  const key = (runners: number[]) => (ordered ? runners : [...runners].sort((a, b) => a - b)).join('-');
  const own = entries?.find((e) => e.runners && key(e.runners) === key(combination));
  const general = entries?.find((e) => !e.runners);
  const entry = own ?? general;
  if (!entry) throw new MissingDividendError(product, combination);
  return decimalText(entry.dividend);
}

export function settleTote(bet: SettleBet): Verdict {
  if (bet.legs.some((l) => l.race.status === 'abandoned')) return { state: 'refund', reason: 'race_abandoned' };
  const selection = live(bet.legs);
  const liveCount = combinations(bet.kind, selection, bet.boxed);
  if (liveCount === 0) return { state: 'refund', reason: 'runner_scratched' };
  if (bet.legs.some((l) => l.race.status !== 'final' || !l.race.placings)) return { state: 'open' };
  const refunded = bet.combinations - liveCount;
  const partial = floorCents(mul(cents(bet.acceptedCents), fraction(BigInt(refunded), BigInt(bet.combinations))));
  const unit = mul(decimalText(bet.percentage!), fraction(1n, 100n));
  const rule = KIND_RULES[bet.kind];
  const dividends = bet.legs[bet.legs.length - 1]!.race.dividends[rule.product as ToteProduct];
  let returned: Fraction = ZERO;
  let won = 0;
  for (const combination of winningCombinations(bet)) {
    if (!covers(bet, selection, combination)) continue;
    const dividend = dividendOf(rule.product as ToteProduct, dividends, combination, rule.ordered);
    returned = add(returned, mul(bet.bonus ? max(sub(dividend, fraction(1n)), ZERO) : dividend, unit));
    won += 1;
  }
  const reason = won === 0 ? 'lost' : won > 1 ? 'dead_heat' : 'won';
  return { state: 'settled', won: won > 0, payoutCents: floorCents(returned), partialRefundCents: partial, reason: refunded > 0 && won === 0 ? 'lost_partial_refund' : reason };
}
