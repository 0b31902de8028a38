// Reserves answered together are taken together (wallet/delivery/reserve-take.ts): one transaction
// for the group, whose bets are decided one after another against the liability the bets before
// them added — so the group takes exactly what its bets taken one by one would — and a group that
// fails is retried bet by bet, each bet then taken or refused as it would be alone.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import type { WalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { bettingFixture, holdRace, lockWaited } from './betting-fixture.ts';
import { until } from './wallet-fixtures.ts';

const MEETING = 880301;
const registry = new Registry();
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: WalletWorker;
before(async () => {
  f = await bettingFixture(MEETING, { registry });
  worker = f.services.wallet.createWorker({ listen: false });
});
after(async () => {
  await worker.stop();
  await f.close();
});

const together = async () => (await registry.getSingleMetricAsString('wallet_reserve_takes_total'))
  .split('\n').filter((l) => l.includes('how="together"')).reduce((n, l) => n + Number(l.split(' ').pop()), 0);

/** `count` WINs of 10 on `runner`, each by its own user, placed at once while the race is held; the first take waits on the race. */
async function placeHeld(count: number, runner: number) {
  const users = Array.from({ length: count }, () => randomUUID());
  const held = await holdRace(f.db.pool, MEETING);
  const before = f.sandbox.requests().length;
  const placing = users.map((u) => f.placeWin(u, runner));
  // Every reserve answered: one take waits on the race lock, the others wait for it to form their group.
  await until('every reserve', () => f.sandbox.requests().length - before >= count);
  await until('the first take to wait on the race', () => lockWaited(f.db.pool));
  await new Promise((resolve) => setTimeout(resolve, 50));
  await held.commit();
  return { users, bets: await Promise.all(placing) };
}

test('a group on one runner is held to max_runner_liability as bets taken one by one: the liability and every wallet agree', async () => {
  // Runner 1 at 3.00: a stake of 10 pays 30. Room for 100: three whole bets, one of 3.33, the rest refused.
  await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: '100' });
  const groupedBefore = await together();
  const { users, bets } = await placeHeld(8, 1);
  assert.ok(await together() - groupedBefore >= 2, 'some bets were taken together');
  const accepted = bets.map((b) => Math.round((b.acceptedStake ?? 0) * 100));
  assert.deepEqual([...accepted].sort((a, b) => b - a), [1000, 1000, 1000, 333, 0, 0, 0, 0]);
  assert.deepEqual(bets.map((b) => b.status).sort(), ['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'PARTIALLY_ACCEPTED', 'REJECTED', 'REJECTED', 'REJECTED', 'REJECTED']);
  const { rows } = await f.db.pool.query<{ liability: string }>(
    "SELECT liability FROM runner_liability WHERE tenant_id = $1 AND runner = 1 AND kind = 'WIN'", [f.tenantId]);
  assert.equal(rows[0]!.liability, '99.99', '3 × 30.00 + 3.33 × 3');
  await worker.drain();
  for (const [i, user] of users.entries()) {
    const cash = Math.round(Number((await f.sandbox.balances(user)).cash) * 100);
    assert.equal(cash, 100_000 - accepted[i]!, `user ${i}: confirmed what was accepted, the rest refunded`);
  }
  await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: null });
});

test('a group whose bet left pending meanwhile is retried bet by bet: the others are taken, that one is answered as it stands', async () => {
  const groupedBefore = await together();
  const users = Array.from({ length: 4 }, () => randomUUID());
  const held = await holdRace(f.db.pool, MEETING);
  const before = f.sandbox.requests().length;
  const placing = users.map((u) => f.placeWin(u, 2));
  await until('every reserve', () => f.sandbox.requests().length - before >= users.length);
  await until('the first take to wait on the race', () => lockWaited(f.db.pool));
  // The last user's bet is read as interrupted meanwhile (as a frontend read after the window would).
  const last = (await f.betOf(users[3]!))!;
  await f.db.pool.query("UPDATE bets SET status = 'rejected', reason_code = 'placement_interrupted', accepted_stake = 0 WHERE bet_id = $1", [last.bet_id]);
  await held.commit();
  const bets = await Promise.all(placing);
  assert.deepEqual(bets.map((b) => b.status), ['ACCEPTED', 'ACCEPTED', 'ACCEPTED', 'REJECTED']);
  assert.equal(await together() - groupedBefore, 0, 'the group failed: every bet was taken alone');
  await worker.drain();
  for (const user of users.slice(0, 3)) assert.equal((await f.sandbox.balances(user)).cash, '990.00');
  assert.deepEqual(await f.storedCalls(last.bet_id), ['reserve delivered 10.00', 'refundBet delivered 10.00'], 'its stake returned');
  assert.equal((await f.sandbox.balances(users[3]!)).cash, '1000.00');
});
