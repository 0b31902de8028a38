// Combination counts of every bet kind: worked examples, and fast-check properties against a brute
// force that enumerates every tuple.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { combinations, selectionProblem } from './combinations.ts';

/** Every tuple of the cartesian product with no runner twice. */
function bruteOrdered(positions: number[][]): number[][] {
  const out: number[][] = [];
  const walk = (p: number, acc: number[]) => {
    if (p === positions.length) return void out.push(acc);
    for (const r of positions[p]!) if (!acc.includes(r)) walk(p + 1, [...acc, r]);
  };
  walk(0, []);
  return out;
}

const runners = (max: number) => fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: max });

test('worked examples: win, standouts, boxes, multi-race and multis', () => {
  const cases: Array<[Parameters<typeof combinations>, number]> = [
    [['WIN', [[[4]]], false], 1],
    [['EXACTA', [[[1], [2, 3]]], false], 2],
    [['EXACTA', [[[1, 2], [1, 2, 3]]], false], 4],
    [['EXACTA', [[[1, 2, 3]]], true], 6],
    [['QUINELLA', [[[1, 2, 3]]], false], 3],
    [['QUINELLA', [[[1, 2], [2, 3]]], false], 3],
    [['TRIFECTA', [[[1, 2, 3, 4]]], true], 24],
    [['TRIFECTA', [[[1], [2, 3], [2, 3, 4]]], false], 4],
    [['FIRST_FOUR', [[[1, 2, 3, 4, 5]]], true], 120],
    [['QUADDIE', [[[1, 2]], [[3]], [[4, 5, 6]], [[7]]], false], 6],
    [['DAILY_DOUBLE', [[[1, 2]], [[3, 4]]], false], 4],
    [['MULTI', [[[1]], [[5]], [[2]]], false], 1],
    [['MULTI', Array.from({ length: 10 }, (_, i) => [[i + 1]]), false], 1],
    // The largest standout a selection may hold (40 runners in each position): 40 × 39 × 38 × 37.
    [['FIRST_FOUR', [Array(4).fill(Array.from({ length: 40 }, (_, i) => i + 1))], false], 2_193_360],
    [['FIRST_FOUR', [[[1, 2], [1, 2, 3], [2, 3, 4], [1, 4, 5, 6]]], false], 18],
  ];
  for (const [args, expected] of cases) {
    assert.equal(selectionProblem(...args), undefined, JSON.stringify(args));
    assert.equal(combinations(...args), expected, JSON.stringify(args));
  }
});

test('ill-formed selections are refused with the place of the fault', () => {
  const cases: Array<[Parameters<typeof selectionProblem>, RegExp]> = [
    [['WIN', [[[4, 5]]], false], /exactly one runner/],
    [['WIN', [[[4]], [[5]]], false], /takes 1 leg/],
    [['EXACTA', [[[1, 1], [2]]], false], /selections\[0\] names a runner twice/],
    [['EXACTA', [[[1], [1]]], false], /no combination/],
    [['TRIFECTA', [[[1, 2]]], true], /at least 3 runners/],
    [['TRIFECTA', [[[1], [2]]], false], /takes 3 positions/],
    [['QUADDIE', [[[1]], [[2]]], false], /takes 4 legs/],
    [['MULTI', [[[1]]], false], /at least 2 legs/],
    [['MULTI', Array.from({ length: 11 }, (_, i) => [[i + 1]]), false], /MULTI takes at most 10 legs, got 11/],
    [['PLACE', [[[1]]], true], /cannot be boxed/],
    [['EXACTA', [[[], [2]]], false], /selections\[0\] is empty/],
    [['WIN', [[[0]]], false], /outside 1-99/],
  ];
  for (const [args, message] of cases) assert.match(selectionProblem(...args) ?? 'accepted', message, JSON.stringify(args));
});

test('a standout counts exactly the ordered tuples of different runners', () => {
  fc.assert(fc.property(fc.constantFrom(['EXACTA', 2] as const, ['TRIFECTA', 3] as const, ['FIRST_FOUR', 4] as const), fc.array(runners(6), { minLength: 4, maxLength: 4 }),
    ([kind, k], lists) => {
      const positions = lists.slice(0, k);
      const expected = bruteOrdered(positions).length;
      if (expected === 0) return assert.match(selectionProblem(kind, [positions], false) ?? '', /no combination/);
      assert.equal(selectionProblem(kind, [positions], false), undefined);
      assert.equal(combinations(kind, [positions], false), expected);
    }));
});

test('a box is the standout with its list in every position; a quinella box counts each pair once', () => {
  fc.assert(fc.property(fc.constantFrom(['EXACTA', 2] as const, ['TRIFECTA', 3] as const, ['FIRST_FOUR', 4] as const), runners(8), ([kind, k], list) => {
    fc.pre(list.length >= k);
    assert.equal(combinations(kind, [[list]], true), bruteOrdered(Array(k).fill(list)).length);
    assert.equal(combinations('QUINELLA', [[list]], true), bruteOrdered([list, list]).length / 2);
  }));
});

test('a quinella standout counts distinct unordered pairs', () => {
  fc.assert(fc.property(runners(6), runners(6), (a, b) => {
    const pairs = new Set(bruteOrdered([a, b]).map(([x, y]) => [x, y].sort((m, n) => m! - n!).join('-')));
    fc.pre(pairs.size > 0);
    assert.equal(combinations('QUINELLA', [[a, b]], false), pairs.size);
  }));
});

test('multi-race tote bets multiply the runners of each leg; a multi is one combination', () => {
  fc.assert(fc.property(fc.array(runners(5), { minLength: 4, maxLength: 4 }), (legs) => {
    assert.equal(combinations('QUADDIE', legs.map((l) => [l]), false), legs.reduce((n, l) => n * l.length, 1));
    assert.equal(combinations('DAILY_DOUBLE', legs.slice(0, 2).map((l) => [l]), false), legs[0]!.length * legs[1]!.length);
    assert.equal(combinations('MULTI', legs.map((l) => [[l[0]!]]), false), 1);
  }));
});
