import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fraction } from './exact.ts';
import { dividendText, legDividend, type DividendBet, type DividendLeg } from './leg-dividend.ts';
import type { RaceFacts, Scratching } from './settle-facts.ts';

const PLACED = new Date('2024-05-01T02:00:00Z');

function race(placings: number[][] | null, over: Partial<RaceFacts> = {}): RaceFacts {
  return { status: placings ? 'final' : 'closed', placings, dividends: {}, placesPaid: 3, scratched: new Map(), resultedAt: placings ? PLACED : null, amended: false, abandonedAt: null, ...over };
}

/** A bet whose legs were all struck at PLACED. */
const bet = (kind: DividendBet['kind'], legs: Array<Omit<DividendLeg, 'struckAt'>>, boxed = false): DividendBet =>
  ({ kind, boxed, legs: legs.map((l) => ({ ...l, struckAt: PLACED })) });
const late = (winDeduction: string | null, placeDeduction: string | null = null): Scratching => ({ at: new Date('2024-05-01T03:00:00Z'), winDeduction, placeDeduction });

test('dividend text: exact, at least two places', () => {
  assert.equal(dividendText(fraction(7n, 2n)), '3.50');
  assert.equal(dividendText(fraction(12n)), '12.00');
  assert.equal(dividendText(fraction(2862n, 1000n)), '2.862');
  assert.equal(dividendText(fraction(1n, 3n)), '0.333333');
});

test('fixed odds: the price taken when the runner finished inside the places paid, else 0.00', () => {
  const win = bet('WIN', [{ selections: [[4]], price: '3.50' }]);
  assert.equal(legDividend(win, 0, [race([[4], [2], [1]])]), '3.50');
  assert.equal(legDividend(win, 0, [race([[2], [4], [1]])]), '0.00');
  const place = bet('PLACE', [{ selections: [[4]], price: '1.80' }]);
  assert.equal(legDividend(place, 0, [race([[2], [1], [4]])]), '1.80');
  assert.equal(legDividend(place, 0, [race([[2], [1], [4]], { placesPaid: 2 })]), '0.00');
});

test('fixed odds in a dead heat: the price times the runner\'s share, as settlement pays it', () => {
  const win = bet('WIN', [{ selections: [[4]], price: '3.50' }]);
  assert.equal(legDividend(win, 0, [race([[4, 2], [1]])]), '1.75'); // dead heat of two for first: half
  assert.equal(legDividend(win, 0, [race([[4, 2, 7]])]), '1.166666'); // of three: a third, six places, rounded down
  const place = bet('PLACE', [{ selections: [[4]], price: '1.80' }]);
  assert.equal(legDividend(place, 0, [race([[2], [1], [4, 5]])]), '0.90'); // two for the last place paid: half
  assert.equal(legDividend(place, 0, [race([[2], [4, 5], [1]])]), '1.80'); // two for second, both inside the places
  const multi = bet('MULTI', [{ selections: [[1]], price: '2.00' }, { selections: [[5]], price: '4.00' }]);
  assert.deepEqual([0, 1].map((i) => legDividend(multi, i, [race([[1, 3]]), race([[5]])])), ['1.00', '4.00']);
});

test('fixed odds: a late scratching deducts from the winnings, never from the stake', () => {
  const win = bet('WIN', [{ selections: [[4]], price: '3.50' }]);
  // 1 + (3.50 − 1) × (1 − 15 %) = 3.125
  assert.equal(legDividend(win, 0, [race([[4], [2]], { scratched: new Map([[9, late('15.00')]]) })]), '3.125');
});

test('null: no final result, a scratched runner, an abandoned race, no place betting', () => {
  const win = bet('WIN', [{ selections: [[4]], price: '3.50' }]);
  assert.equal(legDividend(win, 0, [race(null)]), null);
  assert.equal(legDividend(win, 0, [undefined]), null);
  assert.equal(legDividend(win, 0, [race([[2]], { scratched: new Map([[4, late(null)]]) })]), null);
  assert.equal(legDividend(win, 0, [race(null, { status: 'abandoned' })]), null);
  assert.equal(legDividend(bet('PLACE', [{ selections: [[4]], price: '1.5' }]), 0, [race([[4]], { placesPaid: 0 })]), null);
});

test('a multi: each leg its own price when its runner won; an abandoned race voids its own leg only', () => {
  const multi = bet('MULTI', [{ selections: [[1]], price: '2.00' }, { selections: [[5]], price: '4.00' }]);
  assert.deepEqual([0, 1].map((i) => legDividend(multi, i, [race([[1]]), race([[3], [5]])])), ['2.00', '0.00']);
  assert.deepEqual([0, 1].map((i) => legDividend(multi, i, [race([[1]]), race(null)])), ['2.00', null]);
  assert.deepEqual([0, 1].map((i) => legDividend(multi, i, [race([[1]]), race(null, { status: 'abandoned' })])), ['2.00', null]);
});

test('exotics: the dividend of the winning combination the bet covers; a dead heat adds both', () => {
  const exacta = bet('EXACTA', [{ selections: [[1], [2, 3]], price: null }]);
  const dividends = { exacta: [{ runners: [1, 2], dividend: '30.50' }, { runners: [1, 3], dividend: '12.00' }] };
  assert.equal(legDividend(exacta, 0, [race([[1], [2], [3]], { dividends })]), '30.50');
  assert.equal(legDividend(exacta, 0, [race([[2], [1], [3]], { dividends: { exacta: [{ dividend: '8.00' }] } })]), '0.00');
  assert.equal(legDividend(exacta, 0, [race([[1], [2, 3]], { dividends })]), '42.50'); // dead heat for second
  assert.equal(legDividend(exacta, 0, [race([[1], [2], [3]])]), null, 'the result lacks the dividend');
  const quinella = bet('QUINELLA', [{ selections: [[2, 1]], price: null }]);
  assert.equal(legDividend(quinella, 0, [race([[1], [2]], { dividends: { quinella: [{ dividend: '6.20' }] } })]), '6.20');
  const boxed = bet('TRIFECTA', [{ selections: [[3, 2, 1]], price: null }], true);
  assert.equal(legDividend(boxed, 0, [race([[2], [3], [1]], { dividends: { trifecta: [{ dividend: '99.90' }] } })]), '99.90');
});

test('a daily double: one dividend, on the last leg, once both races are final', () => {
  const dd = bet('DAILY_DOUBLE', [{ selections: [[1, 2]], price: null }, { selections: [[7]], price: null }]);
  const last = race([[7], [1]], { dividends: { dailydouble: [{ dividend: '45.00' }] } });
  assert.deepEqual([0, 1].map((i) => legDividend(dd, i, [race([[2]]), last])), [null, '45.00']);
  assert.deepEqual([0, 1].map((i) => legDividend(dd, i, [race([[3]]), last])), [null, '0.00']);
  assert.deepEqual([0, 1].map((i) => legDividend(dd, i, [race([[2]]), race(null)])), [null, null]);
});

test('a tote bet every combination of which was scratched is refunded: no dividend (null), not 0.00', () => {
  const scratchedFour = { scratched: new Map([[4, late(null)]]), dividends: { exacta: [{ dividend: '8.00' }] } };
  const standout = bet('EXACTA', [{ selections: [[4], [5]], price: null }]);
  assert.equal(legDividend(standout, 0, [race([[5], [6]], scratchedFour)]), null);
  const stillLive = bet('EXACTA', [{ selections: [[4, 6], [5]], price: null }]);
  assert.equal(legDividend(stillLive, 0, [race([[5], [6]], scratchedFour)]), '0.00', 'a live combination lost');
  const dd = bet('DAILY_DOUBLE', [{ selections: [[4]], price: null }, { selections: [[7]], price: null }]);
  assert.deepEqual([0, 1].map((i) => legDividend(dd, i, [race([[2]], scratchedFour), race([[7]], { dividends: { dailydouble: [{ dividend: '45.00' }] } })])), [null, null]);
});
