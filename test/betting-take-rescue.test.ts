// The wallet's rescue racing a take that waits for the race: the placement's lease of its reserve
// runs out while the take waits (a catalogue change holds the race), so the wallet worker's rescue
// takes the reserve over, asks the wallet again and releases the stake with its conditional
// refund. When the race is released the take must lose: its writes roll back, nothing is confirmed
// and the bet ends rejected, with every wallet transaction applied once.
//
// Deterministic without waiting for a lease: the services run on a test clock, moved past the
// lease once the take waits. The placement's lease holder then sees a lease about to run out and
// stops renewing it, and the rescue (run by worker.drain()) finds the reserve orphaned.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { WalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { bettingFixture, holdRace, lockWaited } from './betting-fixture.ts';
import { testClock } from './helpers/app.ts';
import { until } from './wallet-fixtures.ts';

const MEETING = 770012;
const LEASE_MS = 3000;
const clock = testClock();
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: WalletWorker;
before(async () => {
  f = await bettingFixture(MEETING, {
    clock,
    // The take waits for the race far longer than the test holds it: only the lease decides.
    settings: { WAGERLINE_WALLET_LEASE_MS: LEASE_MS, WAGERLINE_WALLET_TIMEOUT_MS: 2000, WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS: 60_000 },
  });
  worker = f.services.wallet.createWorker({ listen: false });
});
after(async () => {
  await worker.stop();
  await f.close();
});

test('the lease lost while the take waits for the race: the rescue releases the stake and the take confirms nothing', async () => {
  const userId = randomUUID();
  const race = await holdRace(f.db.pool, MEETING);
  const placing = f.placeWin(userId, 1).then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
  let betId: string;
  try {
    await until('the take to wait for the race', () => lockWaited(f.db.pool));
    betId = (await f.betOf(userId))!.bet_id;
    assert.deepEqual((await f.sandbox.balances(userId)).reserved, '10.00', 'the wallet holds the stake while the take waits');
    clock.advance(10 * LEASE_MS);
    // A drain's rescue skips a reserve whose row a last renewal holds at that instant (SKIP LOCKED):
    // drain until the rescue has asked the wallet again and the conditional refund went out.
    await until('the rescue to release the stake', async () => {
      await worker.drain();
      return f.sentOps(betId).join() === 'reserve,reserve,refundBet';
    });
    assert.deepEqual(await f.storedCalls(betId), ['reserve delivered 10.00', 'refundBet delivered 10.00']);
    assert.equal((await f.betOf(userId))!.status, 'pending', 'the take still waits: the bet is not decided yet');
  } finally {
    await race.rollback();
  }

  const placed = await placing;
  // The take lost its lease: whatever it answers (or throws), the bet is not taken.
  if (placed.ok) assert.equal(placed.value.status, 'REJECTED', `answered ${placed.value.status} ${placed.value.reasonCode}`);
  const bet = (await f.betOf(userId))!;
  assert.equal(bet.status, 'rejected');
  await worker.drain();
  assert.deepEqual(await f.storedCalls(betId), ['reserve delivered 10.00', 'refundBet delivered 10.00'], 'no confirm queued by the take');
  assert.deepEqual(f.sentOps(betId), ['reserve', 'reserve', 'refundBet'], 'nothing confirmed, the reserve asked again by the rescue only');
  const { rows: [liability] } = await f.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM runner_liability WHERE tenant_id = $1 AND liability <> 0', [f.tenantId]);
  assert.equal(liability!.n, 0, 'the take\'s liability rolled back');
  assert.deepEqual(await f.sandbox.balances(userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
  for (const [transactionId, count] of await f.sandbox.effects()) assert.ok(count <= 1, `${transactionId} took effect ${count} times`);
});
