// A bet's legs and history have no foreign key to the bet (migration 0016): each statement that
// writes them writes them only for the bet rows it wrote itself. These tests hold that rule where
// it could break: a settlement batch naming a bet that is not there, and every kind of placement
// outcome followed by settlement and a cancellation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { applyChanges, type BetChange } from '../src/modules/betting/settlement.queries.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770301;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING);
});
after(async () => {
  await f.close();
});

const count = async (sql: string) => (await f.db.pool.query<{ n: number }>(sql)).rows[0]!.n;
const orphanLegs = () => count('SELECT count(*)::int AS n FROM bet_legs l WHERE NOT EXISTS (SELECT 1 FROM bets b WHERE b.tenant_id = l.tenant_id AND b.bet_id = l.bet_id)');
const orphanHistory = () => count('SELECT count(*)::int AS n FROM bet_history h WHERE NOT EXISTS (SELECT 1 FROM bets b WHERE b.tenant_id = h.tenant_id AND b.bet_id = h.bet_id)');

function change(betId: string): BetChange {
  return { tenantId: f.tenantId, betId, from: 'accepted', to: 'settled', result: 'lost', payout: '0.00', refunded: '0.00', partialRefund: '0.00',
    cashOut: null, adjusted: '0.00', settledAt: new Date(), cancelReason: null, cause: 'result', detail: {} };
}

test('a settlement batch writes history only for the bets it updated: a bet id that is not there gets none', async () => {
  const placed = await f.placeWin(randomUUID(), 1);
  assert.equal(placed.status, 'ACCEPTED');
  const missing = randomUUID();
  await applyChanges(f.db.pool, [change(placed.id), change(missing)], new Date());
  const { rows } = await f.db.pool.query<{ bet_id: string; to_status: string }>(
    'SELECT bet_id, to_status FROM bet_history WHERE bet_id = ANY($1::uuid[]) ORDER BY seq', [[placed.id, missing]]);
  assert.deepEqual(rows.map((r) => [r.bet_id, r.to_status]), [[placed.id, 'pending'], [placed.id, 'accepted'], [placed.id, 'settled']]);
  assert.equal(await orphanHistory(), 0);
});

test('accepted, refused and replayed placements, a result and a cancellation leave no leg or history entry without its bet', async () => {
  const user = randomUUID();
  const key = randomUUID();
  const input = { idempotencyKey: key, type: 'WIN' as const, stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }] };
  const first = await f.services.betting.placeBet(f.user(user), input);
  const replay = await f.services.betting.placeBet(f.user(user), input);
  assert.equal(replay.id, first.id);
  const refused = await f.services.betting.placeBet(f.user(randomUUID()), { ...input, idempotencyKey: randomUUID(), stake: 5000 }); // more than the sandbox balance
  assert.equal(refused.status, 'REJECTED');
  const other = await f.placeWin(randomUUID(), 3);
  await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: other.id }, { reason: 'test' });
  await f.services.catalogue.setStatus(MEETING, 1, 'closed');
  await f.services.settlement.resultRace(MEETING, 1, { placings: [[2], [1], [3]] });
  assert.ok(await count('SELECT count(*)::int AS n FROM bet_legs') >= 4);
  assert.equal(await orphanLegs(), 0);
  assert.equal(await orphanHistory(), 0);
});
