// A race's result as settlement reads it: places paid, finishing positions, dead-heat shares and
// winning orders, with expected values worked out by hand (docs/settlement.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_PLACE_TERMS, misplacedPoolDividends, parseDividends, parsePlacings, placesPaid, positions, shareWithin, unfilledPositions, winners, winningOrders } from './results.ts';

test('places paid by starters: 8 or more → 3, 5-7 → 2, fewer than 5 → none; the terms are configurable', () => {
  const byStarters = [0, 0, 0, 0, 0, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3];
  for (const [starters, places] of byStarters.entries()) assert.equal(placesPaid(starters), places, `${starters} starters`);
  // A jurisdiction paying a 4th place from 16 starters, terms given in any order.
  const terms = [{ minStarters: 5, places: 2 }, { minStarters: 16, places: 4 }, { minStarters: 8, places: 3 }];
  for (const [starters, places] of [[4, 0], [5, 2], [15, 3], [16, 4], [24, 4]] as const) assert.equal(placesPaid(starters, terms), places, `${starters} starters, 4 from 16`);
  assert.equal(placesPaid(3, [{ minStarters: 2, places: 1 }]), 1);
  assert.equal(placesPaid(20, []), 0, 'no terms: no place betting');
  assert.deepEqual(DEFAULT_PLACE_TERMS.map((t) => t.places).sort(), [2, 3]);
});

test('positions: a dead heat of n at place p covers p … p+n−1', () => {
  assert.deepEqual([...positions([[4], [7, 2], [1]])], [[4, { from: 1, to: 1 }], [7, { from: 2, to: 3 }], [2, { from: 2, to: 3 }], [1, { from: 4, to: 4 }]]);
  assert.deepEqual([...positions([[3, 5, 6], [1]])], [[3, { from: 1, to: 3 }], [5, { from: 1, to: 3 }], [6, { from: 1, to: 3 }], [1, { from: 4, to: 4 }]]);
});

test('share within the places paid: positions of the group inside ÷ its size', () => {
  const rows: Array<[string, number, number[][], number, [number, number]]> = [
    ['clear winner, win', 1, [[1], [2]], 1, [1, 1]],
    ['second, win', 2, [[1], [2]], 1, [0, 1]],
    ['two-way dead heat for 1st, win', 2, [[1, 2], [3]], 1, [1, 2]],
    ['three-way dead heat for 1st, win', 3, [[1, 2, 3]], 1, [1, 3]],
    ['two-way for 2nd, 3 paid: fully within', 3, [[1], [2, 3], [4]], 3, [2, 2]],
    ['two-way for 3rd, 3 paid: half', 4, [[1], [2], [3, 4]], 3, [1, 2]],
    ['two-way for 2nd, 2 paid: half', 2, [[1], [2, 3]], 2, [1, 2]],
    ['three-way for 2nd, 3 paid: two of three', 4, [[1], [2, 3, 4]], 3, [2, 3]],
    ['three-way for 3rd, 3 paid: one of three', 5, [[1], [2], [3, 4, 5]], 3, [1, 3]],
    ['fourth after a dead heat for 2nd, 3 paid: out', 1, [[4], [7, 2], [1]], 3, [0, 1]],
    ['not in the placings', 9, [[1], [2], [3]], 3, [0, 1]],
  ];
  for (const [name, runner, placings, paid, expected] of rows) assert.deepEqual(shareWithin(runner, placings, paid), expected, name);
});

test('winning orders: every ordered way the first k positions were filled', () => {
  const sorted = (orders: number[][]) => orders.map((o) => o.join('-')).sort();
  const rows: Array<[string, number[][], number, string[]]> = [
    ['clean, exacta', [[1], [2], [3]], 2, ['1-2']],
    ['clean, first four', [[4], [7], [2], [1], [5]], 4, ['4-7-2-1']],
    ['dead heat for 1st, exacta', [[1, 2], [3]], 2, ['1-2', '2-1']],
    ['dead heat for 2nd, exacta', [[1], [2, 3]], 2, ['1-2', '1-3']],
    ['dead heat for 2nd, trifecta', [[1], [2, 3]], 3, ['1-2-3', '1-3-2']],
    ['dead heat for 3rd, trifecta', [[1], [2], [3, 4]], 3, ['1-2-3', '1-2-4']],
    ['dead heat for 3rd, first four', [[1], [2], [3, 4]], 4, ['1-2-3-4', '1-2-4-3']],
    ['three-way for 1st, exacta', [[1, 2, 3]], 2, ['1-2', '1-3', '2-1', '2-3', '3-1', '3-2']],
    ['two places run, trifecta: none', [[1], [2]], 3, []],
    ['dead heat for 1st, one position', [[5, 6]], 1, ['5', '6']],
  ];
  for (const [name, placings, k, expected] of rows) assert.deepEqual(sorted(winningOrders(placings, k)), expected, name);
  assert.deepEqual(winners([[3, 1], [2]]), [3, 1]);
  assert.deepEqual(winners([]), []);
});

test('placings are checked against the race', () => {
  const field = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((number) => ({ number, scratched: number === 9 }));
  assert.deepEqual(parsePlacings([[4], [7, 2], [1]], field), [[4], [7, 2], [1]]);
  const refused: Array<[unknown, RegExp]> = [
    [[], /non-empty list of places/],
    ['4-7-2', /non-empty list of places/],
    [[[4], []], /placings\[1\] must be a non-empty list/],
    [[[4], [1.5]], /placings\[1\] holds 1.5/],
    [[[4], [11]], /runner 11 is not in the race/],
    [[[4], [9]], /runner 9 is scratched/],
    [[[4], [7, 4]], /runner 4 is placed twice/],
    [[[1, 2, 3, 4, 5, 6, 7, 8, 10]], /at most 8/],
  ];
  for (const [value, message] of refused) assert.match(String(parsePlacings(value, field)), message, JSON.stringify(value));
});

test('dividends: a general one per product or one per combination, per $1 unit', () => {
  assert.deepEqual(parseDividends(undefined), {});
  assert.deepEqual(parseDividends({ exacta: 30, trifecta: 120.5 }), { exacta: [{ dividend: '30' }], trifecta: [{ dividend: '120.5' }] });
  assert.deepEqual(parseDividends({ quinella: [{ runners: [2, 1], dividend: 5.1 }] }), { quinella: [{ runners: [2, 1], dividend: '5.1' }] });
  assert.deepEqual(parseDividends({ firstfour: 9_999_999.99 }), { firstfour: [{ dividend: '9999999.99' }] }, 'the largest dividend taken');
  const refused: Array<[unknown, RegExp]> = [
    [[30], /must be an object/],
    [{ win: 3 }, /not a tote product/],
    [{ exacta: 0.5 }, /at least 1/],
    [{ exacta: '30' }, /at least 1/],
    [{ exacta: 1.005 }, /at most two decimals/],
    [{ exacta: 10_000_000 }, /stay below 10,000,000/],
    [{ exacta: [] }, /empty list/],
    [{ exacta: [{ dividend: 30 }] }, /runners/],
    [{ exacta: [{ runners: [1, 100], dividend: 30 }] }, /runners/],
  ];
  for (const [value, message] of refused) assert.match(String(parseDividends(value)), message, JSON.stringify(value));
});

test('a final result fills the positions settlement needs: the places paid, each offered exotic\'s, every declared dividend\'s', () => {
  const div = (product: string) => ({ [product]: [{ dividend: '30' }] });
  const rule = (products: string[], placesPaid = 3, starters = 10, shortField = false) => ({ products, placesPaid, starters, shortField });
  const all = ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'];
  assert.equal(unfilledPositions([[4], [7], [2], [1]], div('trifecta'), rule(all)), undefined);
  assert.equal(unfilledPositions([[4, 7], [2]], {}, rule(['win', 'place'])), undefined, 'a dead heat fills two positions');
  assert.equal(unfilledPositions([[4]], {}, rule(['win'])), undefined, 'win only: the winner is enough');
  assert.equal(unfilledPositions([[4]], {}, rule(['win', 'place'], 0, 4)), undefined, 'no place betting');
  assert.equal(unfilledPositions([[4], [7]], {}, rule(['win', 'place'], 3, 2)), undefined, 'two starters: two positions at most');
  assert.equal(unfilledPositions([[4], [7]], {}, rule(['win', 'place'])),
    'the 3 places paid need 3 placed runners (10 starters); the placings fill 2: list every placed runner, or say short_field when fewer runners finished');
  assert.match(String(unfilledPositions([[4], [7], [2]], {}, rule(all))), /^firstfour needs 4 placed runners \(10 starters\); the placings fill 3:/);
  assert.match(String(unfilledPositions([[4]], {}, rule(['win', 'exacta'], 0, 4))), /^exacta needs 2 placed runners \(4 starters\); the placings fill 1:/);
  assert.equal(unfilledPositions([[4], [7], [2]], {}, rule(all, 3, 3)), undefined, 'three starters: the first four needs three');
  assert.equal(unfilledPositions([[4], [7]], {}, rule(all, 3, 10, true)), undefined, 'fewer finished');
  assert.equal(unfilledPositions([[4], [7]], div('trifecta'), rule(all, 3, 10, true)), 'dividends.trifecta needs 3 placed runners; the placings fill 2');
  assert.equal(unfilledPositions([[4]], div('quinella'), rule(['win'])), 'dividends.quinella needs 2 placed runners; the placings fill 1');
  assert.equal(unfilledPositions([[4]], div('quaddie'), rule(['win'])), undefined, 'a multi-race pool needs only the winner here');
});

test('a quaddie or daily double dividend belongs on the last race of a pool of its product', () => {
  const d = (...products: string[]) => Object.fromEntries(products.map((p) => [p, [{ dividend: '10' }]]));
  const pools = [{ product: 'quaddie', races: [1, 2, 3, 4] }, { product: 'quaddie', races: [5, 6, 7, 8] }, { product: 'dailydouble', races: [7, 8] }];
  assert.equal(misplacedPoolDividends(d('quaddie', 'dailydouble', 'exacta'), 1, 8, pools), undefined);
  assert.equal(misplacedPoolDividends(d('quaddie'), 1, 4, pools), undefined, 'the early quaddie');
  assert.equal(misplacedPoolDividends(d('exacta'), 1, 2, []), undefined, 'single-race products are not pools');
  assert.equal(misplacedPoolDividends(d('quaddie'), 1, 6, pools), 'dividends.quaddie: race 6 is not the last race of a quaddie of the meeting: '
    + 'the quaddie of races 1, 2, 3, 4 ends on race 4, the quaddie of races 5, 6, 7, 8 ends on race 8; declare each one\'s dividends on its last race');
  assert.equal(misplacedPoolDividends(d('dailydouble'), 1, 7, pools), 'dividends.dailydouble: race 7 is not the last race of a dailydouble of the meeting: '
    + 'the dailydouble of races 7, 8 ends on race 8; declare its dividends there');
  assert.equal(misplacedPoolDividends(d('dailydouble'), 900001, 8, pools.slice(0, 2)), 'dividends.dailydouble: meeting 900001 has no dailydouble, so none of its races takes a dailydouble dividend');
  // A pool replaced since, whose bets still end on race 5: race 5 takes its dividend.
  assert.equal(misplacedPoolDividends(d('quaddie'), 1, 5, [...pools, { product: 'quaddie', races: [2, 3, 4, 5] }]), undefined);
});
