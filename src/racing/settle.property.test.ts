// Properties of settlement against oracles written here from the rules of docs/settlement.md and
// docs/settlement-tote.md, in plain bigint arithmetic (no racing/exact.ts): dead heats, deductions,
// bonus bets, multis and tote dividends over random fields. FUZZ_RUNS / FUZZ_SEED as in
// test/helpers/fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { AFTER, BEFORE, multi, race, scratching, single, tote } from '../../test/factories/settle-facts.ts';
import { fuzzRuns } from '../../test/helpers/fuzz.ts';
import type { BetKind } from './bet-kinds.ts';
import { combinations as countOf } from './combinations.ts';
import { settle, type Verdict } from './settle.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** Decimal text of `units` × 10^-places. */
const text = (units: bigint, places: number) => `${units / 10n ** BigInt(places)}.${String(units % 10n ** BigInt(places)).padStart(places, '0')}`;

/** Placings of runners 1..n, shuffled and grouped into places of 1-3 runners (dead heats). */
const placingsArb = fc.integer({ min: 2, max: 9 }).chain((n) => fc.tuple(
  fc.shuffledSubarray(range(1, n), { minLength: n, maxLength: n }),
  fc.array(fc.integer({ min: 1, max: 3 }), { minLength: n, maxLength: n }),
  fc.boolean(),
)).map(([order, sizes, deadHeats]) => {
  const placings: number[][] = [];
  for (let i = 0, g = 0; i < order.length; g++) {
    const size = deadHeats ? sizes[g]! : 1;
    placings.push(order.slice(i, i + size));
    i += size;
  }
  return placings;
});

/** [first, last] finishing position of every placed runner. */
function spans(placings: number[][]): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  let position = 1;
  for (const place of placings) {
    for (const runner of place) out.set(runner, [position, position + place.length - 1]);
    position += place.length;
  }
  return out;
}

const settledOf = (v: Verdict) => {
  assert.equal(v.state, 'settled', JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x)));
  return v as Extract<Verdict, { state: 'settled' }>;
};

// Late scratchings of runners 20-22 (never placed), each with a deduction or none, before or after the bet.
const scratchingsArb = fc.array(fc.record({
  after: fc.boolean(), win: fc.option(fc.bigInt({ min: 0n, max: 9999n })), place: fc.option(fc.bigInt({ min: 0n, max: 9999n })),
}), { maxLength: 3 });
const toScratched = (list: Array<{ after: boolean; win: bigint | null; place: bigint | null }>) => Object.fromEntries(list.map((s, i) =>
  [20 + i, scratching(s.after ? AFTER : BEFORE, s.win === null ? null : text(s.win, 2), s.place === null ? null : text(s.place, 2))]));
/** Deduction in hundredths of a percent: the late ones summed, capped at 100 %. */
const deductionOf = (list: Array<{ after: boolean; win: bigint | null; place: bigint | null }>, which: 'win' | 'place') => {
  const sum = list.filter((s) => s.after).reduce((acc, s) => acc + (s[which] ?? 0n), 0n);
  return sum > 10_000n ? 10_000n : sum;
};

test('fixed odds: the payout is the exact amount rounded down once, at least the stake in play, bonus = winnings', () => {
  fc.assert(fc.property(
    placingsArb, fc.constantFrom('WIN', 'PLACE') as fc.Arbitrary<'WIN' | 'PLACE'>, fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 2, 3),
    fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 100n, max: 1_000_000n }), scratchingsArb, fc.boolean(),
    (placings, kind, runner, placesPaid, stake, priceUnits, late, bonus) => {
      const facts = race({ placings, placesPaid, scratched: toScratched(late) });
      const verdict = settle(single(kind, stake, runner, text(priceUnits, 2), facts, { bonus }));
      if (kind === 'PLACE' && placesPaid === 0) return void assert.equal(verdict.state, 'refund');
      const v = settledOf(verdict);
      const span = spans(placings).get(runner);
      const paid = kind === 'WIN' ? 1 : placesPaid;
      const inside = span ? Math.max(0, Math.min(paid, span[1]) - span[0] + 1) : 0;
      assert.equal(v.won, inside > 0);
      if (!v.won) return void assert.equal(v.payoutCents, 0n);
      const of = BigInt(span![1] - span![0] + 1);
      // Return in cents = stake × inside/of × (1 + (price − 1) × (1 − d)), over a common denominator.
      const d = deductionOf(late, kind === 'WIN' ? 'win' : 'place');
      const oddsNum = 100n * 10_000n + (priceUnits - 100n) * (10_000n - d); // ÷ 10^6
      const den = of * 1_000_000n;
      const inPlay = stake * BigInt(inside) * 1_000_000n; // ÷ den
      const exact = stake * BigInt(inside) * oddsNum - (bonus ? inPlay : 0n);
      assert.ok(v.payoutCents * den <= exact && exact < (v.payoutCents + 1n) * den, `payout ${v.payoutCents} of ${exact}/${den}`);
      assert.equal(v.partialRefundCents, 0n);
      if (!bonus) assert.ok(v.payoutCents * den >= inPlay - den + 1n, 'a winner gets back at least its stake in play, to the cent below');
      if (bonus && BigInt(inside) === of) {
        const full = settledOf(settle(single(kind, stake, runner, text(priceUnits, 2), facts)));
        assert.equal(v.payoutCents, full.payoutCents - stake, 'bonus: the same return less the stake');
      }
    }), fuzzRuns(500));
});

test('multis: void legs (scratched, abandoned) are neutral, a lost leg loses, an unfinished race in play keeps the bet open', () => {
  const leg = fc.record({ placings: placingsArb, runner: fc.integer({ min: 1, max: 9 }), price: fc.bigInt({ min: 101n, max: 5_000n }), late: scratchingsArb });
  fc.assert(fc.property(fc.array(leg, { minLength: 1, maxLength: 4 }), fc.nat({ max: 3 }), fc.bigInt({ min: 1n, max: 10n ** 7n }), fc.boolean(), fc.nat(),
    (legs, scratchedLegs, stake, bonus, openAt) => {
      const live = legs.map((l) => [l.runner, text(l.price, 2), race({ placings: l.placings, scratched: toScratched(l.late) })] as [number, string, ReturnType<typeof race>]);
      // Void legs, alternately a scratched runner and an abandoned race (any result it had is moot).
      const scratched = range(1, scratchedLegs).map((i) => (i % 2 === 1
        ? [30, '9.99', race({ scratched: { 30: scratching(BEFORE, '50.00', null) } })]
        : [1, '9.99', race({ status: 'abandoned', placings: null })]) as [number, string, ReturnType<typeof race>]);
      const verdict = settle(multi(stake, [...scratched, ...live], { bonus }));
      const winners = legs.map((l) => spans(l.placings).get(l.runner)?.[0] === 1);
      assert.equal(verdict.state, 'settled');
      assert.equal((verdict as Extract<Verdict, { state: 'settled' }>).won, winners.every(Boolean));
      if (legs.length === 1) {
        // One live leg and any number of scratched legs pays what a win bet on that leg pays.
        const win = settle(single('WIN', stake, legs[0]!.runner, text(legs[0]!.price, 2), live[0]![2], { bonus }));
        assert.deepEqual({ ...verdict, reason: '' }, { ...win, reason: '' });
      }
      const unfinished = live.map((l, i) => (i === openAt % live.length ? [l[0], l[1], { ...l[2], status: 'interim' }] as typeof l : l));
      assert.deepEqual(settle(multi(stake, [...scratched, ...unfinished], { bonus })), { state: 'open' });
    }), fuzzRuns(300));
});

/** k-permutations of `list`. */
function arrangements(list: number[], k: number): number[][] {
  if (k === 0) return [[]];
  return list.flatMap((r) => arrangements(list.filter((x) => x !== r), k - 1).map((rest) => [r, ...rest]));
}
const EXOTICS: Array<[BetKind, number, boolean]> = [['EXACTA', 2, true], ['QUINELLA', 2, false], ['TRIFECTA', 3, true], ['FIRST_FOUR', 4, true]];

test('boxed exotics, dead heats and scratchings: a general dividend D pays D × percentage per winning combination covered', () => {
  fc.assert(fc.property(placingsArb, fc.constantFrom(...EXOTICS), fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 7 }),
    fc.bigInt({ min: 100n, max: 10n ** 8n }), fc.bigInt({ min: 1n, max: 10n ** 7n }), fc.bigInt({ min: 1n, max: 10n ** 8n }), fc.boolean(),
    (placings, [kind, k, ordered], box, dividend, percentage, stake, bonus) => {
      // Runners of the box outside the placings (10-12) are scratched.
      const scratchedRunners = box.filter((r) => r >= 10);
      const count = (n: number) => arrangements(range(1, n), k).length / (ordered ? 1 : 2);
      const combinations = count(box.length);
      fc.pre(combinations > 0);
      const product = kind === 'FIRST_FOUR' ? 'firstfour' : kind.toLowerCase();
      const facts = race({ placings, dividends: { [product]: [{ dividend: text(dividend, 2) }] }, scratched: Object.fromEntries(scratchedRunners.map((r) => [r, scratching(BEFORE)])) });
      const verdict = settle(tote({ kind, stakeCents: stake, combinations, percentage: text(percentage, 4), selections: [[box]], boxed: ordered, races: [facts], bonus }));
      const liveBox = box.filter((r) => r < 10);
      const live = count(liveBox.length);
      if (live === 0) return void assert.deepEqual(verdict, { state: 'refund', reason: 'runner_scratched' });
      const v = settledOf(verdict);
      assert.equal(v.partialRefundCents, (stake * BigInt(combinations - live)) / BigInt(combinations), 'partial refund: the scratched share, rounded down');
      // Winning combinations: arrangements of the live box whose i-th runner can fill position i.
      const at = spans(placings);
      const winning = arrangements(liveBox, k).filter((o) => o.every((r, i) => at.has(r) && at.get(r)![0] <= i + 1 && i + 1 <= at.get(r)![1]));
      const covered = ordered ? winning.length : new Set(winning.map((o) => [...o].sort((a, b) => a - b).join('-'))).size;
      // D dollars × percentage/100 per combination, in cents: D cents × percentage units ÷ 10^6.
      assert.equal(v.payoutCents, (BigInt(covered) * (dividend - (bonus ? 100n : 0n)) * percentage) / 1_000_000n);
      assert.equal(v.won, covered > 0);
    }), fuzzRuns(400));
});

test('quaddie and daily double: a general dividend on the last race pays D × percentage per winning line covered', () => {
  const legArb = fc.record({ placings: placingsArb, selection: fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }) });
  fc.assert(fc.property(fc.constantFrom(['QUADDIE', 4] as const, ['DAILY_DOUBLE', 2] as const).chain(([kind, n]) => fc.tuple(fc.constant(kind), fc.array(legArb, { minLength: n, maxLength: n }))),
    fc.bigInt({ min: 100n, max: 10n ** 8n }), fc.bigInt({ min: 1n, max: 10n ** 7n }),
    ([kind, legs], dividend, percentage) => {
      const product = kind === 'QUADDIE' ? 'quaddie' : 'dailydouble';
      const races = legs.map((l, i) => race({ placings: l.placings, dividends: i === legs.length - 1 ? { [product]: [{ dividend: text(dividend, 2) }] } : {} }));
      const combinations = legs.reduce((n, l) => n * l.selection.length, 1);
      const v = settledOf(settle(tote({ kind, stakeCents: 100n, combinations, percentage: text(percentage, 4), selections: legs.map((l) => [l.selection]), races })));
      // A line wins when each leg's runner shares first place: a dead heat multiplies the lines.
      const lines = legs.reduce((n, l) => n * l.selection.filter((r) => l.placings[0]!.includes(r)).length, 1);
      assert.equal(v.payoutCents, (BigInt(lines) * dividend * percentage) / 1_000_000n);
      assert.equal(v.partialRefundCents, 0n);
    }), fuzzRuns(300));
});

test('multis: stake × each leg\'s dead-heat share × its deducted odds, rounded down once; bonus: less the stake in play', () => {
  // Every leg's runner wins or dead-heats for first, so the bet is a winner; the amount is the point.
  const leg = fc.record({ heat: fc.integer({ min: 1, max: 4 }), price: fc.bigInt({ min: 101n, max: 100_000n }), late: scratchingsArb });
  fc.assert(fc.property(fc.array(leg, { minLength: 2, maxLength: 10 }), fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.boolean(), (legs, stake, bonus) => {
    const facts = legs.map((l) => race({ placings: [range(1, l.heat), [l.heat + 1]], scratched: toScratched(l.late) }));
    const v = settledOf(settle(multi(stake, legs.map((l, i) => [1, text(l.price, 2), facts[i]!]), { bonus })));
    // Cents = stake × Π(1 / heat) × Π((10^6 + (price − 1.00) × (10^4 − d) ) / 10^6), price in cents, d in hundredths of a percent.
    let num = stake;
    let den = 1n;
    for (const l of legs) {
      num *= 1_000_000n + (l.price - 100n) * (10_000n - deductionOf(l.late, 'win'));
      den *= BigInt(l.heat) * 1_000_000n;
    }
    const inPlay = (stake * den) / legs.reduce((d, l) => d * BigInt(l.heat), 1n); // stake in play × den, exact
    const exact = num - (bonus ? inPlay : 0n);
    assert.equal(v.payoutCents, exact / den, `payout of ${exact}/${den} cents`);
    assert.equal(v.reason, legs.some((l) => l.heat > 1) ? 'dead_heat' : 'won');
  }), fuzzRuns(400));
});

/** Ordered tuples taking one runner from each list, no runner twice. */
const tuples = (lists: number[][]): number[][] =>
  lists.reduce<number[][]>((acc, list) => acc.flatMap((t) => list.filter((r) => !t.includes(r)).map((r) => [...t, r])), [[]]);

test('standout exotics (a list per position, lists may overlap): every distinct combination counted, each winning one paid once', () => {
  const lists = fc.array(fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 }), { minLength: 4, maxLength: 4 });
  fc.assert(fc.property(placingsArb, fc.constantFrom(...EXOTICS), lists, fc.bigInt({ min: 1n, max: 10n ** 6n }), (placings, [kind, k, ordered], all, stake) => {
    const positions = all.slice(0, k);
    const key = (t: number[]) => (ordered ? t : [...t].sort((a, b) => a - b)).join('-');
    const combos = [...new Set(tuples(positions).map(key))];
    const percentage = (stake * 10_000n) / BigInt(Math.max(combos.length, 1));
    fc.pre(combos.length > 0 && percentage > 0n);
    assert.equal(countOf(kind, [positions], false), combos.length, 'combinations counted at placement');
    // Runners 8 and 9 are scratched (placingsArb places at most 9: keep them out of the placings).
    const placed = placings.map((p) => p.filter((r) => r < 8)).filter((p) => p.length > 0);
    const product = kind === 'FIRST_FOUR' ? 'firstfour' : kind.toLowerCase();
    const facts = race({ placings: placed, dividends: { [product]: [{ dividend: '7.30' }] }, scratched: { 8: scratching(BEFORE), 9: scratching(BEFORE) } });
    const verdict = settle(tote({ kind, stakeCents: stake, combinations: combos.length, percentage: text(percentage, 4), selections: [positions], races: [facts] }));
    const live = combos.filter((c) => !c.split('-').some((r) => Number(r) >= 8));
    if (live.length === 0) return void assert.deepEqual(verdict, { state: 'refund', reason: 'runner_scratched' });
    const at = spans(placed);
    const fills = (order: number[]) => order.every((r, i) => at.has(r) && at.get(r)![0] <= i + 1 && i + 1 <= at.get(r)![1]);
    const winning = live.filter((c) => tuples(c.split('-').map(Number).map((_, i, rs) => (ordered ? [rs[i]!] : rs))).some(fills));
    const v = settledOf(verdict);
    assert.equal(v.payoutCents, (BigInt(winning.length) * 730n * percentage) / 1_000_000n);
    assert.equal(v.partialRefundCents, (stake * BigInt(combos.length - live.length)) / BigInt(combos.length));
  }), fuzzRuns(400));
});
