// Bets taken before their tenant's stored time zone went bad (a name the database no longer knows):
// new bets are refused (tenant-zone-betting.test.ts), but the bets already taken are owed their
// settlement and their cancellations. Both rewrite the bets' rows in the reporting store, whose
// racing day and upload deadline may be computed in the tenant's zone; such a zone must not stop a
// payout or a refund: those times are read in UTC then (docs/tenants.md), and the money moves as
// for any tenant.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixtureWithWorker } from './betting-fixture.ts';

const RETIRED = 'Canada/East-Saskatchewan';
const MEETING = 779401;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;

before(async () => {
  f = await bettingFixtureWithWorker(MEETING);
});
after(() => f.close());

/** A WIN of 10 on `runner` at its imported price (runner 1: 3.00), by a new user. */
async function win(runner: number): Promise<{ userId: string; betId: string }> {
  const userId = randomUUID();
  const bet = await f.placeWin(userId, runner);
  assert.equal(bet.status, 'ACCEPTED');
  return { userId, betId: bet.id };
}

const reported = async (betId: string) => (await f.db.pool.query<{ status: string; payout: string; deadline_at: Date; racing_day: string }>(
  'SELECT status, payout::numeric(18, 2)::text AS payout, deadline_at, racing_day::text FROM reported_bets WHERE bet_id = $1::text', [betId])).rows[0]!;

test('a tenant whose zone the database refuses: its bets taken before are settled, paid and cancelled, reported as before', async () => {
  const winner = await win(1);
  const loser = await win(2);
  const cancelled = await win(3);
  const before = await reported(winner.betId);
  await f.db.pool.query('UPDATE tenants SET timezone = $2 WHERE tenant_id = $1', [f.tenantId, RETIRED]);

  await f.services.catalogue.setStatus(MEETING, 1, 'closed');
  const result = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [4]] });
  assert.equal(result.settlement?.bets_changed, 3);
  const cancel = await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: cancelled.betId }, { reason: 'customer request' });
  assert.deepEqual(cancel.calls, [{ op: 'refundBet', amount: '10.00' }]);
  await f.worker.drain();

  assert.equal((await f.sandbox.balances(winner.userId)).cash, '1020.00', 'the winner paid: 1000 − 10 + 30');
  assert.equal((await f.sandbox.balances(loser.userId)).cash, '990.00');
  assert.equal((await f.sandbox.balances(cancelled.userId)).cash, '1000.00', 'the cancelled stake back');
  const after = await reported(winner.betId);
  assert.equal(after.payout, '30.00');
  assert.equal(after.racing_day, before.racing_day, 'the racing day is the meeting\'s date, whatever the zone');
  // The deadline is 24 hours after the racing day's last race, whatever the zone: it stays.
  assert.equal(after.deadline_at.toISOString(), before.deadline_at.toISOString());
  assert.equal((await reported(cancelled.betId)).status, 'Cancelled');
  assert.equal((await reported(winner.betId)).status, 'Paid');
});

test('one tenant with such a zone does not stop the catalogue: an import re-dates every tenant\'s reported bets', async () => {
  await f.db.pool.query('UPDATE tenants SET timezone = $2 WHERE tenant_id = $1', [f.tenantId, RETIRED]);
  const start = new Date(Date.now() + 2 * 3600_000);
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING + 1, date: new Date().toISOString().slice(0, 10), venue: 'Sandown', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: start.toISOString(), products: ['win'], runners: [1, 2].map((n) => ({ number: n, name: `S${n}`, win: 2 + n })) }],
  });
  // The day's last race is now Sandown's: the day's deadline, on every bet of that day, follows it.
  const { rows } = await f.db.pool.query<{ deadline_at: Date }>('SELECT DISTINCT deadline_at FROM reported_bets WHERE tenant_id = $1', [f.tenantId]);
  assert.deepEqual(rows.map((r) => r.deadline_at.toISOString()), [new Date(start.getTime() + 24 * 3600_000).toISOString()]);
});
