import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BET_STATUSES, canMove, isOpen, isTaken, moveProblem, transitions } from './bet-lifecycle.ts';

test('the lifecycle table: placement outcomes, then settled, refunded, cancelled or cashed out', () => {
  const moves = transitions().map((t) => `${t.from}>${t.to}`);
  assert.deepEqual(moves, [
    'pending>accepted', 'pending>partially_accepted', 'pending>rejected',
    'accepted>settled', 'accepted>refunded', 'accepted>cancelled', 'accepted>cashed_out',
    'partially_accepted>settled', 'partially_accepted>refunded', 'partially_accepted>cancelled', 'partially_accepted>cashed_out',
    'settled>settled', 'settled>refunded', 'settled>cancelled',
  ]);
});

test('final states allow nothing, and the refusal says why', () => {
  for (const from of ['rejected', 'refunded', 'cancelled', 'cashed_out'] as const) {
    for (const to of BET_STATUSES) assert.equal(canMove(from, to), false, `${from} > ${to}`);
  }
  assert.equal(moveProblem('refunded', 'cancelled'), 'a refunded bet is final and cannot become cancelled');
  assert.equal(moveProblem('settled', 'cashed_out'), 'a settled bet can become settled, refunded, cancelled, not cashed_out');
  assert.equal(moveProblem('accepted', 'settled'), undefined);
});

test('taken and open bets', () => {
  assert.deepEqual(BET_STATUSES.filter(isTaken), ['accepted', 'partially_accepted', 'settled', 'refunded', 'cancelled', 'cashed_out']);
  assert.deepEqual(BET_STATUSES.filter(isOpen), ['accepted', 'partially_accepted']);
});

test('docs/betting.md lists every move of the table', () => {
  const doc = readFileSync(new URL('../../docs/betting.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Lifecycle'), doc.indexOf('## Limits'));
  for (const { from, to } of transitions()) {
    const row = section.split('\n').find((line) => line.startsWith('|') && line.split('|')[1]!.includes(`\`${from}\``) && line.split('|')[2]!.includes(`\`${to}\``));
    assert.ok(row, `docs/betting.md Lifecycle has no row for ${from} → ${to}`);
  }
});
