// Settlement of fixed-odds bets (WIN, PLACE, MULTI): one row per rule of docs/settlement.md and its
// edges, every expected amount worked out by hand in the row's comment. Tote bets are in
// settle-tote.test.ts, properties in settle.property.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AFTER, BEFORE, lost, multi, open, outcome, PLACED, race, refund, scratching, single, won, type Expected } from '../../test/factories/settle-facts.ts';
import { settle, type SettleBet } from './settle.ts';

function check(rows: Array<[string, SettleBet, Expected]>): void {
  for (const [name, bet, expected] of rows) assert.deepEqual(outcome(settle(bet)), expected, name);
}

// Runners 1-2-3-4 finish in order; 3 places paid (8 or more starters) unless a row says otherwise.
const final = race();
const twoPlaces = race({ placesPaid: 2 });

test('fixed-odds win and place: stake × price within the places paid, else lost', () => {
  check([
    ['win: $10 on the winner at 3.50 = $35.00', single('WIN', 1000n, 1, '3.50', final), won(3500n)],
    ['win: the runner second loses', single('WIN', 1000n, 2, '3.50', final), lost()],
    ['win: an unplaced runner (not in the placings) loses', single('WIN', 1000n, 9, '3.50', final), lost()],
    ['place, 3 paid: $10 on the third at 1.80 = $18.00', single('PLACE', 1000n, 3, '1.80', final), won(1800n)],
    ['place, 3 paid: the fourth loses', single('PLACE', 1000n, 4, '1.80', final), lost()],
    ['place, 2 paid: $10 on the second at 1.60 = $16.00', single('PLACE', 1000n, 2, '1.60', twoPlaces), won(1600n)],
    ['place, 2 paid: the third loses', single('PLACE', 1000n, 3, '1.80', twoPlaces), lost()],
    ['place, no place betting (fewer than 5 starters): refunded in full', single('PLACE', 1000n, 1, '1.20', race({ placesPaid: 0 })), refund('no_place_betting')],
    ['win, no place betting: a win bet is still paid, $10 × 2.00', single('WIN', 1000n, 1, '2.00', race({ placesPaid: 0 })), won(2000n)],
    ['odd cents: $0.07 × 3.33 = $0.2331, rounded down to 23c', single('WIN', 7n, 1, '3.33', final), won(23n)],
    ['odd cents: $0.01 × 1.99 = 1.99c, rounded down to 1c', single('PLACE', 1n, 2, '1.99', final), won(1n)],
    ['big stake: $999,999.99 × 10000.00 = $9,999,999,900.00', single('WIN', 99_999_999n, 1, '10000.00', final), won(999_999_990_000n)],
  ]);
});

test('dead heats: the stake is divided by the runners sharing the place, the part within the places paid is paid', () => {
  check([
    ['win, two-way dead heat: $10 / 2 × 4.00 = $20.00', single('WIN', 1000n, 2, '4.00', race({ placings: [[1, 2], [3]] })), won(2000n)],
    ['win, three-way dead heat: $10 / 3 × 6.00 = $20.00', single('WIN', 1000n, 3, '6.00', race({ placings: [[1, 2, 3]] })), won(2000n)],
    ['win, three-way dead heat: $1 / 3 × 2.50 = $0.8333…, 83c', single('WIN', 100n, 1, '2.50', race({ placings: [[1, 2, 3]] })), won(83n)],
    ['win, dead heat for second: not a winner', single('WIN', 1000n, 2, '4.00', race({ placings: [[1], [2, 3]] })), lost()],
    ['place, dead heat for 2nd, 3 paid: positions 2-3 are within, $10 × 2.20 in full', single('PLACE', 1000n, 3, '2.20', race({ placings: [[1], [2, 3], [4]] })), won(2200n)],
    ['place, dead heat for 3rd, 3 paid: half, $5 × 3.00 = $15.00', single('PLACE', 1000n, 4, '3.00', race({ placings: [[1], [2], [3, 4]] })), won(1500n)],
    ['place, dead heat for 2nd, 2 paid: half, $5 × 2.00 = $10.00', single('PLACE', 1000n, 2, '2.00', race({ placings: [[1], [2, 3]], placesPaid: 2 })), won(1000n)],
    ['place, three-way for 2nd, 3 paid: 2 of 3, $6 × 3.00 = $18.00', single('PLACE', 900n, 4, '3.00', race({ placings: [[1], [2, 3, 4]] })), won(1800n)],
    ['place, three-way for 3rd, 3 paid: 1 of 3, $3 × 3.00 = $9.00', single('PLACE', 900n, 5, '3.00', race({ placings: [[1], [2], [3, 4, 5]] })), won(900n)],
    ['place, dead heat for 1st, 3 paid: both within, $10 × 1.50', single('PLACE', 1000n, 1, '1.50', race({ placings: [[1, 2], [3]] })), won(1500n)],
    ['place, a dead heat pushes the next runner to 4th: 3 paid, it loses', single('PLACE', 1000n, 1, '1.50', race({ placings: [[4], [7, 2], [1]] })), lost()],
  ]);
});

test('late-scratching deductions: from the winnings of bets taken before the scratching', () => {
  const late = (win: string | null, place: string | null, at = AFTER) => ({ 9: scratching(at, win, place) });
  check([
    ['win 15 % after the bet: 1 + 4 × 0.85 = 4.40, $44.00', single('WIN', 1000n, 1, '5.00', race({ scratched: late('15.00', '5.00') })), won(4400n)],
    ['scratched before the bet: no deduction, $50.00', single('WIN', 1000n, 1, '5.00', race({ scratched: late('15.00', '5.00', BEFORE) })), won(5000n)],
    ['scratched at the very instant of the bet: not after it, no deduction', single('WIN', 1000n, 1, '5.00', race({ scratched: late('15.00', '5.00', PLACED) })), won(5000n)],
    ['place bets take the place deduction: 1 + 1 × 0.95 = 1.95, $19.50', single('PLACE', 1000n, 2, '2.00', race({ scratched: late('15.00', '5.00') })), won(1950n)],
    ['no deduction declared (null) takes nothing', single('WIN', 1000n, 1, '5.00', race({ scratched: late(null, null) })), won(5000n)],
    ['two late scratchings add up: 15 + 10 = 25 %, 1 + 4 × 0.75 = 4.00', single('WIN', 1000n, 1, '5.00',
      race({ scratched: { 8: scratching(AFTER, '15.00', null), 9: scratching(AFTER, '10.00', null) } })), won(4000n)],
    ['only the later of two scratchings counts: 10 %, 1 + 4 × 0.90 = 4.60', single('WIN', 1000n, 1, '5.00',
      race({ scratched: { 8: scratching(BEFORE, '15.00', null), 9: scratching(AFTER, '10.00', null) } })), won(4600n)],
    ['capped at 100 %: 60 + 50 leaves the stake, $10.00', single('WIN', 1000n, 1, '5.00',
      race({ scratched: { 8: scratching(AFTER, '60.00', null), 9: scratching(AFTER, '50.00', null) } })), won(1000n)],
    ['odd cents: 12.5 % at 3.33, 1 + 2.33 × 0.875 = 3.03875, $30.3875 → $30.38', single('WIN', 1000n, 1, '3.33', race({ scratched: late('12.50', null) })), won(3038n)],
    ['with a dead heat: $5 × (1 + 4 × 0.80) = $21.00', single('WIN', 1000n, 1, '5.00', race({ placings: [[1, 2]], scratched: late('20.00', null) })), won(2100n)],
    ['a loser stays a loser', single('WIN', 1000n, 2, '5.00', race({ scratched: late('15.00', '5.00') })), lost()],
  ]);
});

test('scratched runner, abandoned race, race not yet final', () => {
  check([
    ['win on a scratched runner: refunded before the race is run', single('WIN', 1000n, 5, '3.00', race({ status: 'open', scratched: { 5: scratching(AFTER) } })), refund('runner_scratched')],
    ['place on a scratched runner, race final: refunded', single('PLACE', 1000n, 5, '1.50', race({ scratched: { 5: scratching(BEFORE, '10.00', '5.00') } })), refund('runner_scratched')],
    ['abandoned race: win refunded', single('WIN', 1000n, 1, '3.00', race({ status: 'abandoned' })), refund('race_abandoned')],
    ['abandoned race: place refunded', single('PLACE', 1000n, 1, '1.30', race({ status: 'abandoned' })), refund('race_abandoned')],
    ['race open: open', single('WIN', 1000n, 1, '3.00', race({ status: 'open' })), open],
    ['race closed: open', single('WIN', 1000n, 1, '3.00', race({ status: 'closed' })), open],
    ['interim result: open, even with placings', single('WIN', 1000n, 1, '3.00', race({ status: 'interim', placings: [[1], [2]] })), open],
    ['final without placings: open', single('WIN', 1000n, 1, '3.00', race({ placings: null })), open],
  ]);
});

test('bonus bets: winnings only, the return less the stake in play', () => {
  check([
    ['win: $10 × 3.50 − $10 = $25.00', single('WIN', 1000n, 1, '3.50', final, { bonus: true }), won(2500n)],
    ['win, a loser: nothing', single('WIN', 1000n, 2, '3.50', final, { bonus: true }), lost()],
    ['place, dead heat for 3rd: $5 × 3.00 − $5 = $10.00', single('PLACE', 1000n, 4, '3.00', race({ placings: [[1], [2], [3, 4]] }), { bonus: true }), won(1000n)],
    ['deductions capped at 100 %: odds 1.00, winnings $0.00', single('WIN', 1000n, 1, '5.00',
      race({ scratched: { 8: scratching(AFTER, '60.00', null), 9: scratching(AFTER, '50.00', null) } }), { bonus: true }), won(0n)],
    ['late 15 % win deduction: $10 × 4.40 − $10 = $34.00', single('WIN', 1000n, 1, '5.00', race({ scratched: { 9: scratching(AFTER, '15.00', '5.00') } }), { bonus: true }), won(3400n)],
    ['odd cents: $0.07 × 3.33 − $0.07 = $0.1631, 16c', single('WIN', 7n, 1, '3.33', final, { bonus: true }), won(16n)],
    ['multi: $10 × 2.00 × 3.00 − $10 = $50.00', multi(1000n, [[1, '2.00', final], [1, '3.00', final]], { bonus: true }), won(5000n)],
    ['multi, dead-heat leg: $5 × 6.00 − $5 = $25.00', multi(1000n, [[1, '2.00', race({ placings: [[1, 2]] })], [1, '3.00', final]], { bonus: true }), won(2500n)],
  ]);
});

test('multis: the product of the legs; a scratched leg is 1.00, a lost leg loses, every race final first', () => {
  const scratched5 = (status: 'final' | 'open' | 'abandoned' = 'final') => race({ status, scratched: { 5: scratching(AFTER, '10.00', null) } });
  check([
    ['three legs: $10 × 2.00 × 3.00 × 1.50 = $90.00', multi(1000n, [[1, '2.00', final], [1, '3.00', final], [1, '1.50', final]]), won(9000n)],
    ['a losing leg loses the bet', multi(1000n, [[1, '2.00', final], [2, '3.00', final], [1, '1.50', final]]), lost()],
    ['a scratched leg counts 1.00: $10 × 3.00 × 1.50 = $45.00', multi(1000n, [[5, '2.00', scratched5()], [1, '3.00', final], [1, '1.50', final]]), won(4500n)],
    ['every leg scratched: refunded in full', multi(1000n, [[5, '2.00', scratched5()], [5, '3.00', scratched5('open')]]), refund('runner_scratched')],
    ['dead heat in a leg halves the stake: $5 × 2.00 × 3.00 × 1.50 = $45.00',
      multi(1000n, [[1, '2.00', final], [2, '3.00', race({ placings: [[1, 2], [3]] })], [1, '1.50', final]]), won(4500n)],
    ['two dead-heat legs: $10 / 2 / 3 × 4.00 × 9.00 = $60.00',
      multi(1000n, [[2, '4.00', race({ placings: [[1, 2]] })], [3, '9.00', race({ placings: [[1, 2, 3]] })]]), won(6000n)],
    ['win deduction per leg: $10 × (1 + 1 × 0.90) × 3.00 = $57.00', multi(1000n, [[1, '2.00', scratched5()], [1, '3.00', final]]), won(5700n)],
    ['odd cents: $0.07 × 1.11 × 3.00 = $0.2331, 23c', multi(7n, [[1, '1.11', final], [1, '3.00', final]]), won(23n)],
    ['a leg not final: open', multi(1000n, [[1, '2.00', final], [1, '3.00', race({ status: 'interim', placings: [[1]] })]]), open],
    ['a lost leg while another is not final: open, no early loss', multi(1000n, [[2, '2.00', final], [1, '3.00', race({ status: 'closed' })]]), open],
    ['a scratched leg whose race is not final yet: settled on the legs in play, $10 × 2.00', multi(1000n, [[1, '2.00', final], [5, '3.00', scratched5('open')]]), won(2000n)],
    ['a scratched leg whose race is then abandoned: void either way, $10 × 2.00', multi(1000n, [[1, '2.00', final], [5, '3.00', scratched5('abandoned')]]), won(2000n)],
    ['a leg abandoned counts 1.00: $10 × 2.00 × 1.50 = $30.00', multi(1000n, [[1, '2.00', final], [1, '3.00', race({ status: 'abandoned' })], [1, '1.50', final]]), won(3000n)],
    ['a leg abandoned does not refund a lost multi', multi(1000n, [[2, '2.00', final], [1, '3.00', race({ status: 'abandoned' })]]), lost()],
    ['a leg abandoned while another is not final: open', multi(1000n, [[1, '2.00', race({ status: 'closed' })], [1, '3.00', race({ status: 'abandoned' })]]), open],
    ['every leg void (one abandoned, one scratched): refunded', multi(1000n, [[5, '2.00', scratched5()], [1, '3.00', race({ status: 'abandoned' })]]), refund('race_abandoned')],
  ]);
});

test('only a taken bet is settled', () => {
  assert.throws(() => settle(single('WIN', 0n, 1, '3.00', final)), RangeError);
});
