// cancelBet racing the other changes of a bet, through POST /backoffice/query against the reference
// wallet: a cash out or a settlement at the same moment — exactly one of them closes the bet first,
// the other sees what it left, and the wallet ends where the bet's record says, to the cent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { post, walletBench } from './helpers/backoffice.ts';

const MEETING = 880303;
let bench: Awaited<ReturnType<typeof walletBench>>;
before(async () => { bench = await walletBench(MEETING); });
after(() => bench.close());

const CANCEL = 'mutation CancelBet($bet: BetRef!) { cancelBet(bet: $bet) { status previous_status changed } }';
const RECORD = `query GetBets($input: GetBetsInput!) { getBets(input: $input) { bets {
  metadata { status amount percentage original_percentage is_partial payout refunded cash_out result }
  wallet_calls { operation transaction_type amount status } } } }`;

const cancel = (betId: string) => post(bench.ctx, bench.client.headers, CANCEL, { bet: { id: betId, tenant_id: bench.client.tenantId } }, 'CancelBet');
async function recordOf(betId: string) {
  const { body } = await post(bench.ctx, bench.client.headers, RECORD, { input: { tenant: { ids: [bench.client.tenantId], bet_ids: [betId] } } }, 'GetBets');
  return body.data!.getBets.bets[0];
}
/** The calls sent after the placement (the placement's reserve, guard and confirm left out). */
const sentAfterPlacement = (bet: { wallet_calls: Array<{ operation: string; transaction_type: string | null; amount: string; status: string }> }) =>
  bet.wallet_calls.slice(3).map((c) => `${c.operation}${c.transaction_type ? `/${c.transaction_type}` : ''} ${c.amount} ${c.status}`);
const leg = (race: number, runner: number) => [{ meetingId: MEETING, raceNumber: race, selections: [[runner]], price: 2 + runner }];

test('a cancel and a cash out at once: one closes the bet, the other is refused; one wallet movement', async () => {
  const outcomes = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const bet = await bench.place({ type: 'WIN', stake: 10, legs: leg(1, 1 + (i % 8)) });
    const ref = { tenantId: bench.client.tenantId, betId: bet.betId };
    const [cancelled, cashedOut] = await Promise.allSettled([cancel(bet.betId), bench.ctx.services.bets.cashOut(ref, '12.34')]);
    await bench.worker.drain();
    const shown = await recordOf(bet.betId);
    const cancelWon = cancelled.status === 'fulfilled' && cancelled.value.body.data?.cancelBet?.changed === true;
    assert.equal(cancelWon, cashedOut.status === 'rejected', 'exactly one of them has an effect');
    if (cancelWon) {
      assert.deepEqual([shown.metadata.status, shown.metadata.refunded, shown.metadata.cash_out], ['CANCELLED', '10.00', null]);
      assert.deepEqual(sentAfterPlacement(shown), ['refundBet 10.00 delivered']);
      assert.equal((await bench.sandbox.balances(bet.userId)).cash, '1000.00');
    } else {
      assert.equal(cancelled.status, 'fulfilled');
      const refusal = cancelled.status === 'fulfilled' ? cancelled.value.body.errors?.[0]?.extensions : undefined;
      assert.deepEqual([refusal?.code, refusal?.status], ['BET_STATE_CONFLICT', 'cashed_out']);
      assert.deepEqual([shown.metadata.status, shown.metadata.refunded, shown.metadata.cash_out], ['CASHED_OUT', '0.00', '12.34']);
      assert.deepEqual(sentAfterPlacement(shown), ['credit/cashout 12.34 delivered']);
      assert.equal((await bench.sandbox.balances(bet.userId)).cash, '1002.34');
    }
    outcomes.add(cancelWon ? 'cancel' : 'cash out');
  }
  assert.ok(outcomes.size >= 1);
});

test('a cancel and the race\'s settlement at once: the wallet ends with the stake back and no winnings, in either order', async () => {
  const bets = [];
  for (let runner = 1; runner <= 4; runner++) bets.push(await bench.place({ type: 'WIN', stake: 10, legs: leg(2, runner) }));
  await bench.ctx.services.catalogue.setStatus(MEETING, 2, 'closed');
  const results = await Promise.all([
    bench.ctx.services.settlement.resultRace(MEETING, 2, { placings: [[1], [2], [3]] }),
    ...bets.map((b) => cancel(b.betId)),
  ]);
  assert.ok(results.slice(1).every((r) => (r as Awaited<ReturnType<typeof cancel>>).body.data?.cancelBet?.changed === true));
  await bench.worker.drain();
  for (const bet of bets) {
    const shown = await recordOf(bet.betId);
    assert.deepEqual([shown.metadata.status, shown.metadata.payout, shown.metadata.refunded], ['CANCELLED', '0.00', '10.00']);
    assert.equal((await bench.sandbox.balances(bet.userId)).cash, '1000.00', `bet on runner ${bets.indexOf(bet) + 1}: ${sentAfterPlacement(shown).join(', ')}`);
    const settled = sentAfterPlacement(shown).filter((c) => c.startsWith('settleBet'));
    // Settled first, then cancelled: its winnings (runner 1: 30.00) taken back before the stake is returned.
    if (settled.length) assert.deepEqual(sentAfterPlacement(shown).slice(1), [...(settled[0] === 'settleBet 30.00 delivered' ? ['debit/betwincancelled 30.00 delivered'] : []), 'refundBet 10.00 delivered']);
    else assert.deepEqual(sentAfterPlacement(shown), ['refundBet 10.00 delivered']);
  }
});

test('a tote bet cut by a limit: percentage taken below the one asked for; its cancel refunds the stake taken', async () => {
  await bench.ctx.services.betting.setLimits(bench.client.tenantId, { maxStake: '2' });
  const bet = await bench.place({ type: 'EXACTA', stake: 3, boxed: true, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1, 2, 3]] }] });
  await bench.ctx.services.betting.setLimits(bench.client.tenantId, { maxStake: null });
  const taken = (await recordOf(bet.betId)).metadata;
  assert.deepEqual([taken.status, taken.amount, taken.is_partial, taken.original_percentage, taken.percentage],
    ['PARTIALLY_ACCEPTED', '2.00', true, '50.0000', '33.3333']);
  await cancel(bet.betId);
  await bench.worker.drain();
  const shown = await recordOf(bet.betId);
  assert.deepEqual([shown.metadata.status, shown.metadata.refunded], ['CANCELLED', '2.00']);
  assert.deepEqual(sentAfterPlacement(shown), ['refundBet 2.00 delivered']);
  assert.equal((await bench.sandbox.balances(bet.userId)).cash, '1000.00');
});
