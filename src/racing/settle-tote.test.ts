// Settlement of tote bets (exotics, quaddie, daily double): each winning combination covered pays
// its dividend × percentage ÷ 100. One row per rule of docs/settlement-tote.md and its edges; every
// combination count, percentage and amount worked out by hand in the row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AFTER, BEFORE, lost, open, outcome, race, refund, scratching, tote, won, type Expected, type ToteInput } from '../../test/factories/settle-facts.ts';
import type { Dividends } from './results.ts';
import { MissingDividendError, settle } from './settle.ts';

function check(rows: Array<[string, ToteInput, Expected]>): void {
  for (const [name, input, expected] of rows) assert.deepEqual(outcome(settle(tote(input))), expected, name);
}

/** A final race placed `placings` with these dividends. */
const result = (placings: number[][], dividends: Dividends, scratched = {}) => race({ placings, dividends, scratched });
const clean = result([[1], [2], [3], [4], [5]], {
  exacta: [{ dividend: '30.00' }], quinella: [{ dividend: '12.40' }], trifecta: [{ dividend: '120.50' }], firstfour: [{ dividend: '1234.50' }],
});

test('exotics on a clean result: every product, straight, standout and boxed', () => {
  check([
    ['exacta straight 1-2, $1 = 100 %: $30.00', { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2]]], races: [clean] }, won(3000n)],
    ['exacta straight 2-1: the order matters, lost', { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[2], [1]]], races: [clean] }, lost()],
    ['exacta boxed 1,2,3: 6 combinations, $3 = 50 %: $15.00', { kind: 'EXACTA', stakeCents: 300n, combinations: 6, percentage: '50.0000', selections: [[[1, 2, 3]]], boxed: true, races: [clean] }, won(1500n)],
    ['exacta standout 1 / 2,3: 2 combinations, $1 = 50 %: $15.00', { kind: 'EXACTA', stakeCents: 100n, combinations: 2, percentage: '50.0000', selections: [[[1], [2, 3]]], races: [clean] }, won(1500n)],
    ['exacta standout 1 / 3,4: neither second, lost', { kind: 'EXACTA', stakeCents: 100n, combinations: 2, percentage: '50.0000', selections: [[[1], [3, 4]]], races: [clean] }, lost()],
    ['quinella 1,2 in the order run: $12.40', { kind: 'QUINELLA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1, 2]]], races: [clean] }, won(1240n)],
    ['quinella 2,1 either order: $12.40', { kind: 'QUINELLA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[2, 1]]], races: [clean] }, won(1240n)],
    ['quinella of two lists 2 / 1,7: 2 combinations, 1-2 reversed wins, $1 = 50 %: $6.20',
      { kind: 'QUINELLA', stakeCents: 100n, combinations: 2, percentage: '50.0000', selections: [[[2], [1, 7]]], races: [clean] }, won(620n)],
    ['quinella 1,3: lost', { kind: 'QUINELLA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1, 3]]], races: [clean] }, lost()],
    ['trifecta boxed 1-4: 24 combinations, $12 = 50 %: $60.25', { kind: 'TRIFECTA', stakeCents: 1200n, combinations: 24, percentage: '50.0000', selections: [[[1, 2, 3, 4]]], boxed: true, races: [clean] }, won(6025n)],
    ['trifecta standout 1 / 2,3 / 2,3,4 on 1-3-2: 4 combinations, $2 = 50 %, dividend 88.00: $44.00',
      { kind: 'TRIFECTA', stakeCents: 200n, combinations: 4, percentage: '50.0000', selections: [[[1], [2, 3], [2, 3, 4]]], races: [result([[1], [3], [2]], { trifecta: [{ dividend: '88.00' }] })] }, won(4400n)],
    ['first four straight, $1 = 100 %: $1,234.50', { kind: 'FIRST_FOUR', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2], [3], [4]]], races: [clean] }, won(123450n)],
    ['first four boxed 1-5: 120 combinations, $6 = 5 %: $61.725 → $61.72', { kind: 'FIRST_FOUR', stakeCents: 600n, combinations: 120, percentage: '5.0000', selections: [[[1, 2, 3, 4, 5]]], boxed: true, races: [clean] }, won(6172n)],
    ['first four when only three places were run: lost', { kind: 'FIRST_FOUR', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2], [3], [4]]], races: [result([[1], [2], [3]], { firstfour: [{ dividend: '99.00' }] })] }, lost()],
    ['percentage kept to 4 places: boxed trifecta 1,2,3 for $1 = 16.6666 %, 45.30 × 0.166666 = $7.5499… → $7.54',
      { kind: 'TRIFECTA', stakeCents: 100n, combinations: 6, percentage: '16.6666', selections: [[[1, 2, 3]]], boxed: true, races: [result([[3], [1], [2]], { trifecta: [{ dividend: '45.30' }] })] }, won(754n)],
  ]);
});

test('dead heats: each winning combination covered pays the dividend declared for it', () => {
  const firstHeat = (dividends: Dividends) => result([[1, 2], [3]], dividends);
  check([
    ['exacta dead heat for 1st, boxed 1,2,3 at 50 %: (14.20 + 16.80) × 0.5 = $15.50',
      { kind: 'EXACTA', stakeCents: 300n, combinations: 6, percentage: '50.0000', selections: [[[1, 2, 3]]], boxed: true,
        races: [firstHeat({ exacta: [{ runners: [1, 2], dividend: '14.20' }, { runners: [2, 1], dividend: '16.80' }] })] }, won(1550n)],
    ['exacta dead heat for 1st, straight 2-1: its own dividend only, $16.80',
      { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[2], [1]]],
        races: [firstHeat({ exacta: [{ runners: [1, 2], dividend: '14.20' }, { runners: [2, 1], dividend: '16.80' }] })] }, won(1680n)],
    ['exacta dead heat for 1st, a general dividend for both: 2 × 15.00 × 0.5 = $15.00',
      { kind: 'EXACTA', stakeCents: 300n, combinations: 6, percentage: '50.0000', selections: [[[1, 2, 3]]], boxed: true, races: [firstHeat({ exacta: [{ dividend: '15.00' }] })] }, won(1500n)],
    ['exacta dead heat for 2nd, straight 1-3: $9.60', { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [3]]],
      races: [result([[1], [2, 3]], { exacta: [{ runners: [1, 2], dividend: '8.10' }, { runners: [1, 3], dividend: '9.60' }] })] }, won(960n)],
    ['exacta dead heat for 2nd, one own dividend and a general one for the other: 1-2 takes the general $10.00',
      { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2]]],
        races: [result([[1], [2, 3]], { exacta: [{ runners: [1, 3], dividend: '9.60' }, { dividend: '10.00' }] })] }, won(1000n)],
    ['quinella dead heat for 2nd, box 1,2,3 = 3 combinations at 100 %: 5.00 (declared 2-1) + 7.00 = $12.00',
      { kind: 'QUINELLA', stakeCents: 300n, combinations: 3, percentage: '100.0000', selections: [[[1, 2, 3]]],
        races: [result([[1], [2, 3]], { quinella: [{ runners: [2, 1], dividend: '5.00' }, { runners: [1, 3], dividend: '7.00' }] })] }, won(1200n)],
    ['quinella dead heat for 1st: one winning combination, $8.00', { kind: 'QUINELLA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1, 2]]],
      races: [firstHeat({ quinella: [{ dividend: '8.00' }] })] }, won(800n)],
    ['trifecta dead heat for 3rd, box 1-4 = 24 combinations, $24 = 100 %: 50.00 + 70.00 = $120.00',
      { kind: 'TRIFECTA', stakeCents: 2400n, combinations: 24, percentage: '100.0000', selections: [[[1, 2, 3, 4]]], boxed: true,
        races: [result([[1], [2], [3, 4]], { trifecta: [{ runners: [1, 2, 3], dividend: '50.00' }, { runners: [1, 2, 4], dividend: '70.00' }] })] }, won(12000n)],
  ]);
});

test('a dividend a winning bet needs and the result lacks: MissingDividendError, not a loss', () => {
  const bet = (dividends: Dividends): ToteInput => ({ kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2]]], races: [result([[1], [2]], dividends)] });
  assert.throws(() => settle(tote(bet({}))), MissingDividendError);
  assert.throws(() => settle(tote(bet({ exacta: [{ runners: [2, 1], dividend: '9.00' }] }))), MissingDividendError);
  assert.throws(() => settle(tote(bet({ quinella: [{ dividend: '9.00' }] }))), MissingDividendError);
  check([['a losing bet needs no dividend', { ...bet({}), selections: [[[2], [1]]] }, lost()]]);
});

test('scratched runners: their combinations refunded as a share of the stake, rounded down', () => {
  const scratched = (runner: number, at = BEFORE) => ({ [runner]: scratching(at) });
  check([
    ['boxed trifecta 1-4 (24) for $10 = 41.6666 %, 4 scratched: 6 left, 18/24 × $10 = $7.50 back; 120.00 × 0.416666 = $49.9999… → $49.99',
      { kind: 'TRIFECTA', stakeCents: 1000n, combinations: 24, percentage: '41.6666', selections: [[[1, 2, 3, 4]]], boxed: true,
        races: [result([[1], [2], [3]], { trifecta: [{ dividend: '120.00' }] }, scratched(4))] }, won(4999n, 750n)],
    ['boxed exacta 1,2,3 (6) for $1 = 16.6666 %, 3 scratched: 4/6 × $1 = 66.66c → 66c back; 20.00 × 0.166666 = $3.33',
      { kind: 'EXACTA', stakeCents: 100n, combinations: 6, percentage: '16.6666', selections: [[[1, 2, 3]]], boxed: true,
        races: [result([[2], [1]], { exacta: [{ dividend: '20.00' }] }, scratched(3))] }, won(333n, 66n)],
    ['the same bet losing: the partial refund alone', { kind: 'EXACTA', stakeCents: 100n, combinations: 6, percentage: '16.6666', selections: [[[1, 2, 3]]], boxed: true,
      races: [result([[4], [5]], { exacta: [{ dividend: '20.00' }] }, scratched(3, AFTER))] }, lost(66n)],
    ['exacta standout 1 / 2,3, 3 scratched: 1 of 2 back, $0.50; 1-2 at 50 % of 30.00 = $15.00',
      { kind: 'EXACTA', stakeCents: 100n, combinations: 2, percentage: '50.0000', selections: [[[1], [2, 3]]], races: [result([[1], [2]], { exacta: [{ dividend: '30.00' }] }, scratched(3))] }, won(1500n, 50n)],
    ['boxed trifecta 1,2,3, one scratched: no combination left, refunded in full', { kind: 'TRIFECTA', stakeCents: 600n, combinations: 6, percentage: '100.0000', selections: [[[1, 2, 3]]], boxed: true,
      races: [result([[1], [2], [4]], { trifecta: [{ dividend: '80.00' }] }, scratched(3))] }, refund('runner_scratched')],
    ['exacta straight, the winner scratched: refunded in full, before the race is run', { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2]]],
      races: [race({ status: 'open', scratched: scratched(1) })] }, refund('runner_scratched')],
    ['partly scratched, race not final: open', { kind: 'EXACTA', stakeCents: 100n, combinations: 2, percentage: '50.0000', selections: [[[1], [2, 3]]],
      races: [race({ status: 'closed', scratched: scratched(3) })] }, open],
  ]);
});

// Quaddie legs: races 1-4 won by 1, 3, 5 and 7; the dividend is declared on the last leg's race.
const leg = (winner: number, dividends: Dividends = {}, scratched = {}) => result([[winner], [20]], dividends, scratched);
const quaddieRaces = (last: Dividends, third = leg(5)) => [leg(1, { quaddie: [{ dividend: '9999.00' }] }), leg(3), third, leg(7, last)];
const quaddie = (races = quaddieRaces({ quaddie: [{ dividend: '250.00' }] })): ToteInput => (
  { kind: 'QUADDIE', stakeCents: 300n, combinations: 6, percentage: '50.0000', selections: [[[1, 2]], [[3]], [[4, 5, 6]], [[7]]], races });

test('quaddie and daily double: the dividend of the last leg\'s race, every race final', () => {
  const dd = (races: ReturnType<typeof race>[]): ToteInput => ({ kind: 'DAILY_DOUBLE', stakeCents: 200n, combinations: 2, percentage: '100.0000', selections: [[[1, 2]], [[3]]], races });
  check([
    ['daily double 1,2 / 3, $2 = 100 %: the last race\'s 45.60, not the first\'s, $45.60', dd([leg(2, { dailydouble: [{ dividend: '999.00' }] }), leg(3, { dailydouble: [{ dividend: '45.60' }] })]), won(4560n)],
    ['daily double, runner 1 of leg 1 scratched: 1 of 2 combinations back, $1.00; 2 then 3 still pays $45.60',
      dd([leg(2, {}, { 1: scratching(BEFORE) }), leg(3, { dailydouble: [{ dividend: '45.60' }] })]), won(4560n, 100n)],
    ['daily double, the second leg lost: lost', dd([leg(2), leg(4, { dailydouble: [{ dividend: '45.60' }] })]), lost()],
    ['daily double, the second race not final: open', dd([leg(2), race({ status: 'interim', placings: [[3]] })]), open],
    ['daily double, the first leg lost and the second race open: open, no early loss', dd([leg(9), race({ status: 'open' })]), open],
    ['daily double, a race abandoned: refunded in full', dd([leg(2), race({ status: 'abandoned' })]), refund('race_abandoned')],
    ['quaddie 1,2 / 3 / 4,5,6 / 7 = 6 combinations, $3 = 50 %: 250.00 × 0.5 = $125.00', quaddie(), won(12500n)],
    ['quaddie, the third leg lost', quaddie([leg(1), leg(3), leg(8), leg(7, { quaddie: [{ dividend: '250.00' }] })]), lost()],
    ['quaddie, runner 6 of leg 3 scratched: 4 combinations left, 2/6 × $3 = $1.00 back; $125.00',
      quaddie(quaddieRaces({ quaddie: [{ dividend: '250.00' }] }, leg(5, {}, { 6: scratching(BEFORE) }))), won(12500n, 100n)],
    ['quaddie, the only runner of leg 2 scratched: every combination gone, refunded',
      quaddie([leg(1), race({ status: 'open', scratched: { 3: scratching(BEFORE) } }), race({ status: 'open' }), race({ status: 'open' })]), refund('runner_scratched')],
    ['quaddie, dead heat 1,2 in leg 1: two winning combinations, (200.00 + 180.00) × 0.5 = $190.00',
      quaddie([result([[1, 2]], {}), leg(3), leg(5), leg(7, { quaddie: [{ runners: [1, 3, 5, 7], dividend: '200.00' }, { runners: [2, 3, 5, 7], dividend: '180.00' }] })]), won(19000n)],
    ['quaddie, the last race not final: open', quaddie([leg(1), leg(3), leg(5), race({ status: 'closed' })]), open],
    ['quaddie, leg 2 abandoned: refunded', quaddie([leg(1), race({ status: 'abandoned' }), leg(5), leg(7)]), refund('race_abandoned')],
  ]);
  assert.throws(() => settle(tote(dd([leg(2, { dailydouble: [{ dividend: '45.60' }] }), leg(3)]))), MissingDividendError, 'a dividend on the first race only');
});

test('bonus tote bets: each winning combination returns its dividend less its $1 unit, × percentage', () => {
  check([
    ['exacta $1 = 100 %: 30.00 − 1 = $29.00', { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[1], [2]]], races: [clean], bonus: true }, won(2900n)],
    ['exacta boxed at 50 %: (30.00 − 1) × 0.5 = $14.50', { kind: 'EXACTA', stakeCents: 300n, combinations: 6, percentage: '50.0000', selections: [[[1, 2, 3]]], boxed: true, races: [clean], bonus: true }, won(1450n)],
    ['dead heat at 50 %: (14.20 − 1 + 16.80 − 1) × 0.5 = $14.50', { kind: 'EXACTA', stakeCents: 300n, combinations: 6, percentage: '50.0000', selections: [[[1, 2, 3]]], boxed: true, bonus: true,
      races: [result([[1, 2]], { exacta: [{ runners: [1, 2], dividend: '14.20' }, { runners: [2, 1], dividend: '16.80' }] })] }, won(1450n)],
    ['quaddie at 50 %: (250.00 − 1) × 0.5 = $124.50', { ...quaddie(), bonus: true }, won(12450n)],
    ['a loser: nothing', { kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000', selections: [[[2], [1]]], races: [clean], bonus: true }, lost()],
  ]);
});
