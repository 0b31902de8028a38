// The race status machine, move by move: every pair of statuses is either legal or refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptsBets, acceptsPrices, acceptsScratchings, checkMove, isManualStatus, RACE_STATUSES, type RaceStatus } from './race-status.ts';

// from → the statuses it may move to; every other pair (but staying put) is illegal.
const LEGAL: Record<RaceStatus, RaceStatus[]> = {
  open: ['suspended', 'closed', 'abandoned'],
  suspended: ['open', 'closed', 'abandoned'],
  closed: ['interim', 'final', 'abandoned'],
  interim: ['final', 'abandoned'],
  final: [],
  abandoned: [],
};

for (const from of RACE_STATUSES) {
  for (const to of RACE_STATUSES) {
    const legal = LEGAL[from].includes(to);
    const name = from === to ? `${from} → ${to} is accepted and changes nothing` : `${from} → ${to} is ${legal ? 'legal' : 'refused'}`;
    test(name, () => {
      const move = checkMove(from, to);
      if (from === to) return assert.deepEqual(move, { ok: true, changed: false });
      if (legal) return assert.deepEqual(move, { ok: true, changed: true });
      assert.equal(move.ok, false);
      assert.ok(!move.ok && move.reason.includes(`race is ${from} and cannot become ${to}`), JSON.stringify(move));
    });
  }
}

test('operators set open, suspended, closed and abandoned; results set interim and final', () => {
  assert.deepEqual(RACE_STATUSES.filter(isManualStatus), ['open', 'suspended', 'closed', 'abandoned']);
  assert.equal(isManualStatus('final'), false);
  assert.equal(isManualStatus('OPEN'), false);
});

test('bets only on an open race; prices while open or suspended; scratchings until resulted', () => {
  assert.deepEqual(RACE_STATUSES.filter(acceptsBets), ['open']);
  assert.deepEqual(RACE_STATUSES.filter(acceptsPrices), ['open', 'suspended']);
  assert.deepEqual(RACE_STATUSES.filter(acceptsScratchings), ['open', 'suspended', 'closed']);
});
