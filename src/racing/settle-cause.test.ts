// What decided a verdict (settle-cause.ts), on facts built by hand: times say which change came last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AFTER, BEFORE, RESULTED, multi, race, scratching, single, tote } from '../../test/factories/settle-facts.ts';
import { settle, type SettleBet } from './settle.ts';
import { settlementCause } from './settle-cause.ts';

const LATER = new Date(RESULTED.getTime() + 60_000);

function causeOf(bet: SettleBet) {
  const verdict = settle(bet);
  assert.notEqual(verdict.state, 'open');
  return settlementCause(bet, verdict as Exclude<typeof verdict, { state: 'open' }>);
}

test('single-race bets: the result (or amendment) settles, a scratching or abandonment refunds', () => {
  const rows: Array<[string, SettleBet, string]> = [
    ['win on the winner', single('WIN', 1000n, 1, '2.00', race()), 'result'],
    ['win on a loser, by an amended result', single('WIN', 1000n, 4, '2.00', race({ amended: true })), 'amendment'],
    ['win on a runner scratched before the result (settled on the latest facts)', single('WIN', 1000n, 5, '2.00', race({ scratched: { 5: scratching(AFTER) } })), 'scratching'],
    ['win on a runner scratched, race still open', single('WIN', 1000n, 5, '2.00', race({ status: 'open', scratched: { 5: scratching(AFTER) } })), 'scratching'],
    ['win on a runner scratched, then the race abandoned: the verdict is the abandonment', single('WIN', 1000n, 5, '2.00',
      race({ status: 'abandoned', scratched: { 5: scratching(AFTER) } })), 'abandoned'],
    ['place, fewer than 5 starters at the result', single('PLACE', 1000n, 1, '1.50', race({ placesPaid: 0 })), 'result'],
    ['place, fewer than 5 starters, amended result', single('PLACE', 1000n, 1, '1.50', race({ placesPaid: 0, amended: true })), 'amendment'],
    ['exacta with a scratched combination: partial refund at the result', tote({ kind: 'EXACTA', stakeCents: 100n, combinations: 6, percentage: '16.6666',
      selections: [[[1, 2, 5]]], races: [race({ scratched: { 5: scratching(AFTER) }, dividends: { exacta: [{ runners: [1, 2], dividend: '9.00' }] } })], boxed: true }), 'result'],
    ['exacta with every combination scratched', tote({ kind: 'EXACTA', stakeCents: 100n, combinations: 1, percentage: '100.0000',
      selections: [[[5], [6]]], races: [race({ status: 'open', scratched: { 5: scratching(AFTER) } })] }), 'scratching'],
  ];
  for (const [name, bet, cause] of rows) assert.equal(causeOf(bet), cause, name);
});

test('multis: the last of the facts they waited for — a leg\'s result, or the scratching or abandonment voiding a leg', () => {
  const resultedEarly = race({ resultedAt: BEFORE });
  const rows: Array<[string, SettleBet, string]> = [
    ['both legs resulted: the later result', multi(1000n, [[1, '2.00', resultedEarly], [1, '2.00', race({ amended: true })]]), 'amendment'],
    ['a leg scratched after the other leg\'s result', multi(1000n, [[1, '2.00', resultedEarly], [5, '2.00', race({ status: 'open', scratched: { 5: scratching(AFTER) } })]]), 'scratching'],
    ['a leg scratched before the other leg\'s result', multi(1000n, [[5, '2.00', race({ status: 'open', scratched: { 5: scratching(AFTER) } })], [1, '2.00', race()]]), 'result'],
    ['a scratched leg whose race was resulted later still: the scratching voided it', multi(1000n,
      [[1, '2.00', resultedEarly], [5, '2.00', race({ resultedAt: LATER, scratched: { 5: scratching(AFTER) } })]]), 'scratching'],
    ['a leg abandoned after the other\'s result', multi(1000n, [[1, '2.00', resultedEarly], [1, '2.00', race({ status: 'abandoned', abandonedAt: LATER })]]), 'abandoned'],
    ['a leg abandoned before the other\'s result', multi(1000n, [[1, '2.00', race({ status: 'abandoned', abandonedAt: BEFORE })], [4, '2.00', race()]]), 'result'],
    ['a scratching and a result at the same instant: the result', multi(1000n,
      [[5, '2.00', race({ status: 'open', scratched: { 5: scratching(RESULTED) } })], [1, '2.00', race()]]), 'result'],
    ['every leg void, one by an abandonment', multi(1000n, [[5, '2.00', race({ status: 'open', scratched: { 5: scratching(LATER) } })],
      [1, '2.00', race({ status: 'abandoned', abandonedAt: BEFORE })]]), 'abandoned'],
    ['every leg scratched', multi(1000n, [[5, '2.00', race({ status: 'open', scratched: { 5: scratching(AFTER) } })],
      [6, '2.00', race({ status: 'open', scratched: { 6: scratching(AFTER) } })]]), 'scratching'],
  ];
  for (const [name, bet, cause] of rows) assert.equal(causeOf(bet), cause, name);
});
