// The catalogue's say on a bet, one rule per row: each refusal names its leg and nothing else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPlacement, type LegInput, type PoolState, type RaceState } from './placement-checks.ts';
import { formatOdds } from './stakes.ts';

const runner = (number: number, win: string | null = '3.50', place: string | null = '1.60', scratched = false) => ({ number, scratched, win, place });
const race = (raceNumber: number, over: Partial<RaceState> = {}): RaceState => ({
  meeting_id: 900001, race_number: raceNumber, status: 'open',
  products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'],
  runners: [runner(1), runner(2, '5.00', '2.00'), runner(3, '8.00', '2.80'), runner(4, null, null, true)],
  place_min_starters: 3, ...over,
});
const leg = (raceNumber: number, selections: number[][], price?: number): LegInput => ({ meetingId: 900001, raceNumber, selections, ...(price !== undefined && { price }) });
const pools: PoolState[] = [{ product: 'quaddie', races: [5, 6, 7, 8] }, { product: 'dailydouble', races: [7, 8] }];

test('taken: fixed-odds legs at the current price when it is at least the price seen; tote bets without prices', () => {
  const win = checkPlacement('WIN', [leg(5, [[1]], 3.5)], [race(5)], []);
  assert.ok(win.ok && formatOdds(win.prices[0]!) === '3.5');
  const better = checkPlacement('WIN', [leg(5, [[2]], 4.8)], [race(5)], []);
  assert.ok(better.ok && formatOdds(better.prices[0]!) === '5', 'a better current price is taken');
  const place = checkPlacement('PLACE', [leg(5, [[3]], 2.8)], [race(5)], []);
  assert.ok(place.ok && formatOdds(place.prices[0]!) === '2.8');
  const multi = checkPlacement('MULTI', [leg(5, [[1]], 3.5), leg(6, [[2]], 5)], [race(5), race(6)], []);
  assert.ok(multi.ok && multi.prices.length === 2);
  assert.deepEqual(checkPlacement('TRIFECTA', [leg(5, [[1, 2, 3]])], [race(5)], []), { ok: true, prices: [] });
  assert.ok(checkPlacement('QUADDIE', [5, 6, 7, 8].map((r) => leg(r, [[1, 2]])), [5, 6, 7, 8].map((r) => race(r)), pools).ok);
  assert.ok(checkPlacement('DAILY_DOUBLE', [leg(7, [[1]]), leg(8, [[2, 3]])], [race(7), race(8)], pools).ok);
});

test('refused, each for its own reason', () => {
  const cases: Array<[string, ReturnType<typeof checkPlacement>, string, RegExp]> = [
    ['unknown race', checkPlacement('WIN', [leg(9, [[1]], 3.5)], [undefined], []), 'race_not_found', /legs\[0\] \(meeting 900001 race 9\): no such race/],
    ['closed race', checkPlacement('WIN', [leg(5, [[1]], 3.5)], [race(5, { status: 'closed' })], []), 'race_not_open', /the race is closed/],
    ['suspended race', checkPlacement('EXACTA', [leg(5, [[1], [2]])], [race(5, { status: 'suspended' })], []), 'race_not_open', /suspended/],
    ['product not offered', checkPlacement('FIRST_FOUR', [leg(5, [[1, 2, 3, 4]])], [race(5, { products: ['win'] })], []), 'product_not_offered', /firstfour is not offered/],
    ['scratched runner', checkPlacement('WIN', [leg(5, [[4]], 3.5)], [race(5)], []), 'runner_scratched', /runner 4 is scratched/],
    ['scratched in an exotic', checkPlacement('TRIFECTA', [leg(5, [[1, 2, 4]])], [race(5)], []), 'runner_scratched', /runner 4/],
    ['unknown runner', checkPlacement('WIN', [leg(5, [[12]], 3.5)], [race(5)], []), 'runner_not_found', /runner 12 is not in the race/],
    ['no price seen', checkPlacement('WIN', [leg(5, [[1]])], [race(5)], []), 'price_required', /price .* is required/],
    ['price drifted in', checkPlacement('WIN', [leg(5, [[1]], 3.6)], [race(5)], []), 'price_changed', /is now 3\.5, below the 3\.6 seen/],
    ['no win price', checkPlacement('WIN', [leg(5, [[1]], 3.5)], [race(5, { runners: [runner(1, null)] })], []), 'product_not_offered', /no win price/],
    ['multi on one race twice', checkPlacement('MULTI', [leg(5, [[1]], 3.5), leg(5, [[2]], 5)], [race(5), race(5)], []), 'invalid_selection', /each race once/],
    ['quaddie off the pool', checkPlacement('QUADDIE', [4, 5, 6, 7].map((r) => leg(r, [[1]])), [4, 5, 6, 7].map((r) => race(r)), pools), 'product_not_offered', /no quaddie pool on races 4,5,6,7/],
    ['quaddie leg on another meeting', checkPlacement('QUADDIE', [5, 6, 7, 8].map((r) => ({ ...leg(r, [[1]]), ...(r === 7 && { meetingId: 900002 }) })),
      [5, 6, 7, 8].map((r) => race(r)), pools), 'product_not_offered', /legs\[2\] is on meeting 900002, legs\[0\] on meeting 900001: a QUADDIE's legs are races of one meeting/],
    ['daily double out of order', checkPlacement('DAILY_DOUBLE', [leg(8, [[1]]), leg(7, [[1]])], [race(8), race(7)], pools), 'product_not_offered', /in order/],
    ['later leg closed', checkPlacement('MULTI', [leg(5, [[1]], 3.5), leg(6, [[2]], 5)], [race(5), race(6, { status: 'abandoned' })], []), 'race_not_open', /legs\[1\]/],
  ];
  for (const [name, result, code, message] of cases) {
    assert.ok(!result.ok, name);
    assert.equal(result.refusal.code, code, name);
    assert.match(result.refusal.message, message, name);
  }
});

test('PLACE on a field its place terms pay no places for: refused as not offered, naming the field', () => {
  const small = race(5, { place_min_starters: 5 });
  assert.deepEqual(checkPlacement('PLACE', [leg(5, [[3]], 2.8)], [small], []), {
    ok: false, refusal: { code: 'product_not_offered', message: 'legs[0] (meeting 900001 race 5): no place betting: 3 starters, places are paid from 5' },
  });
  const none = checkPlacement('PLACE', [leg(5, [[3]], 2.8)], [race(5, { place_min_starters: null })], []);
  assert.ok(!none.ok && none.refusal.message.endsWith('no place betting: the place terms of its jurisdiction pay no places'));
  // The scratched runner does not count; the field's other bets stand.
  assert.ok(checkPlacement('PLACE', [leg(5, [[3]], 2.8)], [race(5, { place_min_starters: 3 })], []).ok);
  assert.ok(checkPlacement('WIN', [leg(5, [[1]], 3.5)], [small], []).ok, 'a win bet on the same field is taken');
  assert.ok(checkPlacement('TRIFECTA', [leg(5, [[1, 2, 3]])], [small], []).ok);
});
