// The mapping of a stored bet to its report, for every kind's selection text, with no database:
// each selection must be one the upload accepts for that type, as it stands.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { checkSelection, parseSelection } from '../../racing/selection.ts';
import type { LegRow } from './betting.queries.ts';
import { placedBetReport, type ReportedBet } from './placed-report.ts';

const bet = (kind: BetKind, boxed = false, accepted: string | null = '4.00'): ReportedBet => ({
  tenant_id: 't', bet_id: 'b', user_id: 'u', kind, created_at: new Date('2024-05-01T00:00:00Z'), medium: 'app', bonus: true, boxed,
  accepted_stake: accepted,
});
const leg = (n: number, selections: number[][], price: string | null = null): LegRow => ({
  leg: n, meeting_id: '9', race_number: n + 4, event_id: 'e', event_name: 'V R', meeting_name: 'V', event_time: new Date(), selections,
  seen_price: price, price, struck_at: new Date(),
});

test('each kind carries the runner or the selection text an upload of its type stores', () => {
  const cases: Array<[ReportedBet, LegRow[], Array<[number | null, string | null, string | null]>]> = [
    [bet('PLACE'), [leg(1, [[7]], '1.8')], [[7, null, '1.8']]],
    [bet('MULTI'), [leg(2, [[3]], '4'), leg(1, [[5]], '2.5')], [[5, null, '2.5'], [3, null, '4']]],
    [bet('QUINELLA'), [leg(1, [[1, 2, 3]])], [[null, '1,2,3', null]]],
    [bet('QUINELLA', true), [leg(1, [[1, 2, 3]])], [[null, '1,2,3(BOXED)', null]]],
    [bet('EXACTA', true), [leg(1, [[4, 1]])], [[null, '4,1(BOXED)', null]]],
    [bet('FIRST_FOUR'), [leg(1, [[1], [2, 3], [4], [5, 6]])], [[null, '1/2,3/4/5,6', null]]],
    [bet('DAILY_DOUBLE'), [leg(1, [[1, 2]]), leg(2, [[6]])], [[null, '1,2/6', null], [null, '1,2/6', null]]],
  ];
  for (const [b, legs, expected] of cases) {
    const report = placedBetReport(b, legs, 'Unresulted', null);
    assert.deepEqual(report.legs.map((l) => [l.runnerNumber, l.exoticsSelection, l.price]), expected, b.kind);
    assert.deepEqual(report.legs.map((l) => [l.leg, l.raceNumber]), report.legs.map((_, i) => [i + 1, i + 5]), `${b.kind}: legs in order`);
    for (const l of report.legs) {
      if (l.exoticsSelection === null) continue;
      const parsed = parseSelection(l.exoticsSelection);
      assert.ok(typeof parsed !== 'string' && parsed.canonical === l.exoticsSelection, l.exoticsSelection);
      assert.equal(checkSelection(KIND_RULES[b.kind as BetKind].uploadType, parsed), undefined, l.exoticsSelection);
    }
  }
});

test('status, payout and resulted are the caller\'s; the bet gives the rest; a bet not taken has no report', () => {
  const win = [leg(1, [[2]], '3')];
  assert.deepEqual(placedBetReport(bet('WIN'), win, 'Unresulted', null), {
    tenantId: 't', betId: 'b', userId: 'u', kind: 'WIN', placedAt: new Date('2024-05-01T00:00:00Z'), medium: 'app', bonus: true,
    status: 'Unresulted', resulted: false, amount: '4.00', payout: null,
    legs: [{ leg: 1, meetingId: '9', raceNumber: 5, runnerNumber: 2, exoticsSelection: null, price: '3' }],
  });
  assert.deepEqual(['Paid', 'FullRefund', 'PartialRefund', 'Cancelled'].map((s) => placedBetReport(bet('WIN'), win, s as 'Paid', '4.00').resulted), [true, true, true, true]);
  assert.equal(placedBetReport(bet('WIN'), win, 'Paid', '7.50', false).resulted, false);
  assert.throws(() => placedBetReport(bet('WIN', false, '0.00'), win, 'Unresulted', null), /not taken/);
  assert.throws(() => placedBetReport(bet('WIN', false, null), win, 'Unresulted', null), /not taken/);
});
