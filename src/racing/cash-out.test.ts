// The cash-out limit on the races' facts now: worked out by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cashOutLimit } from './cash-out.ts';
import type { RaceFacts, Scratching, SettleBet } from './settle.ts';

const placed = new Date('2026-11-21T10:00:00Z');
const open = (scratched: Array<[number, Scratching]> = []): RaceFacts =>
  ({ status: 'open', placings: null, dividends: {}, placesPaid: 3, scratched: new Map(scratched), resultedAt: null, amended: false, abandonedAt: null });
const final = (placings: number[][], scratched: Array<[number, Scratching]> = []): RaceFacts => ({ ...open(scratched), status: 'final', placings, resultedAt: placed });
const late = (winDeduction: string): Scratching => ({ at: new Date(placed.getTime() + 60_000), winDeduction, placeDeduction: null });
const bet = (kind: 'WIN' | 'MULTI', legs: Array<[number, string, RaceFacts]>, bonus = false): SettleBet => ({
  kind, boxed: false, bonus, acceptedCents: 1000n, combinations: 1, percentage: null,
  legs: legs.map(([runner, price, race]) => ({ selections: [[runner]], price, struckAt: placed, race })),
});

test('a single: its whole return while its race is undecided; refused once decided', () => {
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', open()]])), { mostCents: 3500n });
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', open()]], true)), { mostCents: 2500n }, 'a bonus bet: its winnings only');
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', final([[4]])]])), { refusal: 'its race has a final result: the bet is being settled' });
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', open([[4, late('0')]])]])), { refusal: 'its runner is scratched: the bet is refunded' });
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', { ...open(), status: 'abandoned' }]])), { refusal: 'its race was abandoned: the bet is refunded' });
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', { ...open(), status: 'interim' }]])), { refusal: 'its race has an interim result: the bet is settled on its final result' });
});

test('late deductions declared after a leg was struck bound the cash out as they will bound the payout', () => {
  // 1 + (3.5 − 1) × 0.85 = 3.125: $31.25; a scratching before the bet was struck takes nothing.
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', open([[7, late('15')]])]])), { mostCents: 3125n });
  const before: Scratching = { at: new Date(placed.getTime() - 1), winDeduction: '15', placeDeduction: null };
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', open([[7, before]])]])), { mostCents: 3500n });
  // A place bet reads the place deduction: 1 + 0.5 × 0.9 = 1.45.
  const place: SettleBet = { ...bet('WIN', [[4, '1.5', open([[7, { ...late('15'), placeDeduction: '10' }]])]]), kind: 'PLACE' };
  assert.deepEqual(cashOutLimit(place), { mostCents: 1450n });
  // A multi's open leg: 10 × 3 × (1 + 3 × 0.8).
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', open()], [2, '4', open([[7, late('20')]])]])), { mostCents: 10200n });
});

test('a multi: legs won at their deducted odds and dead-heat share, void legs at 1.00, a lost leg refuses', () => {
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', open()], [2, '4', open()]])), { mostCents: 12000n });
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', final([[1, 5]])], [2, '4', open()]])), { mostCents: 6000n }, '10 × ½ × 3 × 4');
  // A 20% deduction after the bet: 1 + (3 − 1) × 0.8 = 2.6; 10 × 2.6 × 4.
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', final([[1]], [[7, late('20')]])], [2, '4', open()]])), { mostCents: 10400n });
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', final([[5], [1]])], [2, '4', open()]])), { refusal: 'leg 1 has lost: the bet returns nothing' });
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', open([[1, late('0')]])], [2, '4', open()]])), { mostCents: 4000n }, 'a scratched leg counts 1.00');
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', open([[1, late('0')]])], [2, '4', open([[2, late('0')]])]])),
    { refusal: 'every leg is void (runner scratched or race abandoned): the bet is refunded' });
  const abandoned = { ...open(), status: 'abandoned' as const };
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', abandoned], [2, '4', open()]])), { mostCents: 4000n }, 'an abandoned leg counts 1.00');
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', abandoned], [2, '4', open([[2, late('0')]])]])),
    { refusal: 'every leg is void (runner scratched or race abandoned): the bet is refunded' });
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', abandoned], [2, '4', final([[2]])]])),
    { refusal: 'every leg still in play has a final result: the bet is being settled' });
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', open()], [2, '4', open()]], true)), { mostCents: 11000n }, 'a bonus multi: winnings only');
  assert.deepEqual(cashOutLimit(bet('MULTI', [[1, '3', { ...open(), status: 'interim' }], [2, '4', open()]])),
    { refusal: 'the race of leg 1 has an interim result: cash out waits for its final result' });
});

test('a PLACE in a field too small for place betting returns its stake at most: it is refunded if nothing changes', () => {
  // Fewer than 5 starters now: settlement refunds the place bet (no_place_betting), $10 back, not 10 × 1.80.
  const noPlaces: RaceFacts = { ...open(), placesPaid: 0 };
  const place: SettleBet = { ...bet('WIN', [[4, '1.8', noPlaces]]), kind: 'PLACE' };
  assert.deepEqual(cashOutLimit(place), { mostCents: 1000n });
  assert.deepEqual(cashOutLimit({ ...place, bonus: true }), { mostCents: 0n }, 'a bonus bet refunded wins nothing');
  assert.deepEqual(cashOutLimit(bet('WIN', [[4, '3.5', noPlaces]])), { mostCents: 3500n }, 'a win bet is paid as usual');
});
