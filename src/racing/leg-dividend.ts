// What one leg of a bet paid per $1 unit on its race's final result, as the back-office shows it
// (docs/backoffice-schema.md, "dividend"). Pure, exact, and read from the same facts as settlement:
//
// - fixed-odds legs (WIN, PLACE, each leg of a MULTI): the price taken on the leg, less any
//   late-scratching deduction, times the runner's dead-heat share (settle.ts pays a dead heat on
//   that share of the stake), when it finished inside the places the leg is paid on (first;
//   PLACE: the places paid); "0.00" when it did not;
// - tote legs (exotics): the sum of the dividends declared for the winning combinations the bet
//   covers (one, or several in a dead heat); "0.00" when it covers none. A QUADDIE or DAILY_DOUBLE
//   has one dividend, declared on its last race: it is shown on the last leg;
// - null while the race has no final result, when the leg was refunded or void (scratched runner,
//   abandoned race, no place betting), on every leg of a multi-race tote bet with an abandoned race
//   and on the earlier legs of one, and when the result lacks the dividend.
import { KIND_RULES, type BetKind } from './bet-kinds.ts';
import { combinations as countOf } from './combinations.ts';
import { add, decimalText, fraction, mul, ZERO, type Fraction } from './exact.ts';
import { formatDecimal } from './money.ts';
import { shareWithin, winners, winningOrders, type DividendEntry, type ToteProduct } from './results.ts';
import { deducted, deductionPercent } from './settle.ts';
import type { RaceFacts } from './settle-facts.ts';

export interface DividendLeg {
  selections: number[][];
  /** Fixed odds: the price taken on the leg (decimal text). */
  price: string | null;
  /** When that price was agreed (racing/settle.ts deductionPercent). */
  struckAt: Date;
}

export interface DividendBet {
  kind: BetKind;
  boxed: boolean;
  legs: DividendLeg[];
}

/** Places kept: a price (2 places) less a deduction (2 places of a percent) needs at most 6. */
const PLACES = 6;

/** Exact decimal text, at least two places ("3.50", "2.862"); beyond six places rounded down. */
export function dividendText(value: Fraction): string {
  const text = formatDecimal((value.n * 10n ** BigInt(PLACES)) / value.d, PLACES, 'trim');
  const dot = text.indexOf('.');
  return dot < 0 ? `${text}.00` : text.length - dot === 2 ? `${text}0` : text;
}

const isFinal = (race: RaceFacts | undefined): race is RaceFacts & { placings: number[][] } =>
  race !== undefined && race.status === 'final' && race.placings !== null;

function fixedLeg(bet: DividendBet, leg: DividendLeg, race: RaceFacts | undefined): string | null {
  if (!isFinal(race) || leg.price === null) return null;
  const runner = leg.selections[0]?.[0];
  if (runner === undefined || race.scratched.has(runner)) return null;
  const place = bet.kind === 'PLACE';
  const paid = place ? race.placesPaid : 1;
  if (paid === 0) return null;
  const [shares, of] = shareWithin(runner, race.placings, paid);
  if (shares === 0) return '0.00';
  // In a dead heat the leg is paid on its share of the stake (settle.ts): per $1, the price × share.
  const odds = deducted(decimalText(leg.price), deductionPercent(race, leg.struckAt, place ? 'place' : 'win'));
  return dividendText(mul(odds, fraction(BigInt(shares), BigInt(of))));
}

/** The dividend declared for a combination: its own entry first, else the product's general one. */
function declared(entries: DividendEntry[] | undefined, combination: number[], ordered: boolean): Fraction | undefined {
  const key = (runners: number[]) => (ordered ? runners : [...runners].sort((a, b) => a - b)).join('-');
  const entry = entries?.find((e) => e.runners && key(e.runners) === key(combination)) ?? entries?.find((e) => !e.runners);
  return entry ? decimalText(entry.dividend) : undefined;
}

/** Whether a single-race exotic's live selection covers the finishing order. */
function coversOrder(bet: DividendBet, positions: number[][], order: number[]): boolean {
  if (bet.boxed || positions.length === 1) return order.every((runner) => positions[0]!.includes(runner));
  const straight = order.every((runner, i) => positions[i]?.includes(runner));
  return straight || (!KIND_RULES[bet.kind].ordered && !!positions[0]?.includes(order[1]!) && !!positions[1]?.includes(order[0]!));
}

function toteDividend(bet: DividendBet, races: RaceFacts[], combinations: number[][], covers: (c: number[]) => boolean): string | null {
  const rule = KIND_RULES[bet.kind];
  const entries = races[races.length - 1]!.dividends[rule.product as ToteProduct];
  let total = ZERO;
  for (const combination of combinations.filter(covers)) {
    const dividend = declared(entries, combination, rule.ordered);
    if (!dividend) return null;
    total = add(total, dividend);
  }
  return dividendText(total);
}

function toteLeg(bet: DividendBet, index: number, facts: Array<RaceFacts | undefined>): string | null {
  const rule = KIND_RULES[bet.kind];
  if (rule.legs !== 1 && index !== bet.legs.length - 1) return null;
  const races = rule.legs === 1 ? [facts[index]] : facts;
  if (!races.every(isFinal)) return null;
  const live = bet.legs.map((leg, i) => leg.selections.map((list) => list.filter((runner) => !races[rule.legs === 1 ? 0 : i]!.scratched.has(runner))));
  // Every combination scratched: the bet is refunded, no dividend applies.
  if (countOf(bet.kind, rule.legs === 1 ? [live[index]!] : live, bet.boxed) === 0) return null;
  if (rule.legs === 1) {
    const orders = winningOrders(races[0]!.placings, rule.positions);
    const combinations = rule.ordered ? orders : [...new Map(orders.map((o) => [[...o].sort((a, b) => a - b).join('-'), o])).values()];
    return toteDividend(bet, races as RaceFacts[], combinations, (c) => coversOrder(bet, live[index]!, c));
  }
  const combinations = races.reduce<number[][]>((acc, race) => acc.flatMap((c) => winners(race.placings).map((w) => [...c, w])), [[]]);
  return toteDividend(bet, races as RaceFacts[], combinations, (c) => c.every((runner, leg) => live[leg]![0]!.includes(runner)));
}

/** The dividend of leg `index` of `bet`, given the facts of each leg's race (same order). */
export function legDividend(bet: DividendBet, index: number, facts: Array<RaceFacts | undefined>): string | null {
  const leg = bet.legs[index];
  if (!leg) return null;
  // A fixed-odds leg stands on its own race (a multi's abandoned leg is void, its others paid on);
  // a multi-race tote bet with an abandoned race is refunded whole.
  if (KIND_RULES[bet.kind].pricing === 'fixed') return fixedLeg(bet, leg, facts[index]);
  return facts.some((race) => race?.status === 'abandoned') ? null : toteLeg(bet, index, facts);
}
