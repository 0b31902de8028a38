// Results settle bets through the wallet: placed bets on a race, a final result, the wallet calls
// delivered to the sandbox, and every user's balance checked to the cent; then an amendment, a
// scratching, an abandonment, cancellations, a cash out and an adjustment.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770101;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: { drain(): Promise<void>; stop(): Promise<void>; start(): Promise<void> };
before(async () => {
  f = await bettingFixture(MEETING);
  worker = f.services.wallet.createWorker({ listen: false });
});
after(async () => {
  await worker.stop();
  await f.close();
});

async function win(runner: number, stake: number, price: number) {
  const userId = randomUUID();
  const bet = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type: 'WIN', stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[runner]], price }],
  });
  assert.equal(bet.status, 'ACCEPTED');
  return { userId, betId: bet.id };
}

const cash = async (userId: string) => (await f.sandbox.balances(userId)).cash;
const ops = async (betId: string) => (await f.db.pool.query<{ op: string; amount: string; t: string | null }>(
  `SELECT op, amount, extra->>'transactionType' AS t FROM wallet_calls WHERE bet_id = $1 AND op <> 'reserve' AND NOT placement_guard ORDER BY seq`, [betId])).rows.map((r) => `${r.op}${r.t ? `/${r.t}` : ''} ${r.amount}`);

test('a final result pays winners, closes losers with settleBet 0; an amendment settles the difference once', async () => {
  const a = await win(1, 10, 3);   // runner 1 at 3.00
  const b = await win(2, 10, 4);   // runner 2 at 4.00
  await f.services.catalogue.setStatus(MEETING, 1, 'closed');
  const first = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]] });
  assert.equal(first.status, 'final');
  assert.equal(first.settlement!.bets_changed, 2);
  await worker.drain();
  assert.equal(await cash(a.userId), '1020.00'); // 1000 − 10 + 30
  assert.equal(await cash(b.userId), '990.00');
  assert.deepEqual(await ops(a.betId), ['confirm 10.00', 'settleBet 30.00']);
  assert.deepEqual(await ops(b.betId), ['confirm 10.00', 'settleBet 0.00']);

  const again = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]] });
  assert.equal(again.amended, true);
  assert.equal(again.settlement!.calls_queued, 0);

  await f.services.settlement.resultRace(MEETING, 1, { placings: [[2], [1], [3]] }); // protest upheld
  await worker.drain();
  assert.equal(await cash(a.userId), '990.00');
  assert.equal(await cash(b.userId), '1030.00');
  assert.deepEqual(await ops(a.betId), ['confirm 10.00', 'settleBet 30.00', 'debit/deductbetwin 30.00']);
  assert.deepEqual(await ops(b.betId), ['confirm 10.00', 'settleBet 0.00', 'settleBet 40.00']);

  const cancelled = await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: b.betId }, { reason: 'test' });
  assert.deepEqual(cancelled.calls, [{ op: 'debit', amount: '40.00', transactionType: 'betwincancelled' }, { op: 'refundBet', amount: '10.00' }]);
  const twice = await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: b.betId });
  assert.deepEqual([twice.changed, twice.calls], [false, []]);
  await worker.drain();
  assert.equal(await cash(b.userId), '1000.00');
});
