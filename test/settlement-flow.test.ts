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

  // The same result again is no amendment: nothing recorded, nothing settled, nothing sent.
  const again = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]] });
  assert.deepEqual([again.amended, again.changed, again.version, again.settlement], [false, false, first.version, null]);

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

/** A second race of the meeting, open, runners 1-8 at win 2-9 and place 1.5. */
async function raceTwo(raceNumber: number) {
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: raceNumber, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place', 'exacta'],
      runners: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `R${n}`, win: 1 + n, place: 1.5 })) }],
  });
}

async function bet(raceNumber: number, type: 'WIN' | 'PLACE' | 'EXACTA', selections: number[][], stake: number, price?: number) {
  const userId = randomUUID();
  const placed = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type, stake, boxed: type === 'EXACTA',
    legs: [{ meetingId: MEETING, raceNumber, selections, ...(price && { price }) }],
  });
  assert.equal(placed.status, 'ACCEPTED', JSON.stringify(placed));
  return { userId, betId: placed.id, ref: { tenantId: f.tenantId, betId: placed.id } };
}

const status = async (betId: string) => (await f.db.pool.query<{ status: string }>('SELECT status FROM bets WHERE bet_id = $1', [betId])).rows[0]!.status;
const historyCount = async (betId: string) => (await f.db.pool.query('SELECT 1 FROM bet_history WHERE bet_id = $1', [betId])).rowCount;

test('a scratching refunds win bets on the runner at once; exotics lose its combinations at the result, refunded in part', async () => {
  await raceTwo(2);
  const onScratched = await bet(2, 'WIN', [[8]], 5, 9);
  const exacta = await bet(2, 'EXACTA', [[1, 2, 8]], 6); // 6 combinations at $1: 100 %
  const lateDeducted = await bet(2, 'WIN', [[1]], 10, 2);
  await f.services.catalogue.scratch(MEETING, 2, 8, { win_deduction: 20 });
  await f.services.settlement.runPending();
  await worker.drain();
  assert.equal(await status(onScratched.betId), 'refunded');
  assert.equal(await cash(onScratched.userId), '1000.00');
  assert.equal(await status(exacta.betId), 'accepted');
  await f.services.catalogue.setStatus(MEETING, 2, 'closed');
  await f.services.settlement.resultRace(MEETING, 2, { placings: [[1], [2], [3]], dividends: { exacta: 7.5 } });
  await worker.drain();
  // Exacta: 4 of 6 combinations hold runner 8 → $4.00 back; 1-2 wins 7.50 × 100 % = $7.50.
  assert.deepEqual(await ops(exacta.betId), ['confirm 6.00', 'credit/betpartialrefund 4.00', 'settleBet 7.50']);
  assert.equal(await cash(exacta.userId), '1005.50');
  // Win at 2.00 taken before a 20 % deduction: winnings 10.00 → 8.00, returned 18.00.
  assert.deepEqual(await ops(lateDeducted.betId), ['confirm 10.00', 'settleBet 18.00']);
});

test('an abandoned race refunds every unsettled bet in full', async () => {
  await raceTwo(3);
  const a = await bet(3, 'WIN', [[2]], 7.25, 3);
  const b = await bet(3, 'EXACTA', [[1, 2]], 3);
  await f.services.catalogue.setStatus(MEETING, 3, 'abandoned');
  await f.services.settlement.runPending();
  await worker.drain();
  assert.deepEqual([await status(a.betId), await status(b.betId)], ['refunded', 'refunded']);
  assert.deepEqual(await ops(a.betId), ['confirm 7.25', 'refundBet 7.25']);
  assert.deepEqual([await cash(a.userId), await cash(b.userId)], ['1000.00', '1000.00']);
});

test('a no-race declared after an interim result refunds every bet of the race: nothing was paid on the interim', async () => {
  await raceTwo(9);
  const win = await bet(9, 'WIN', [[1]], 4, 2);
  const exacta = await bet(9, 'EXACTA', [[1, 2]], 2);
  await f.services.catalogue.setStatus(MEETING, 9, 'closed');
  await f.services.settlement.resultRace(MEETING, 9, { placings: [[1], [2], [3]], interim: true });
  await f.services.catalogue.setStatus(MEETING, 9, 'abandoned');
  await f.services.settlement.runPending();
  await worker.drain();
  assert.deepEqual([await status(win.betId), await status(exacta.betId)], ['refunded', 'refunded']);
  assert.deepEqual(await ops(win.betId), ['confirm 4.00', 'refundBet 4.00']);
  assert.deepEqual([await cash(win.userId), await cash(exacta.userId)], ['1000.00', '1000.00']);
});

test('cash out closes an open fixed-odds bet; adjustments credit with a reason; illegal changes write nothing', async () => {
  await raceTwo(4);
  const fixed = await bet(4, 'WIN', [[3]], 10, 4);
  const tote = await bet(4, 'EXACTA', [[1, 2]], 2);
  const out = await f.services.bets.cashOut(fixed.ref, '25.40');
  assert.deepEqual([out.status, out.calls], ['cashed_out', [{ op: 'credit', amount: '25.40', transactionType: 'cashout' }]]);
  const before = [await historyCount(fixed.betId), (await ops(fixed.betId)).length];
  for (const attempt of [
    () => f.services.bets.cashOut(fixed.ref, '1.00'),          // already cashed out
    () => f.services.bets.cancelBet(fixed.ref),                // cashed out is final
    () => f.services.bets.cashOut(tote.ref, '1.00'),           // a tote bet
  ]) await assert.rejects(attempt(), (e: { code?: string }) => e.code === 'bet_state_conflict');
  await assert.rejects(f.services.bets.cashOut(tote.ref, '1.005'), (e: { code?: string }) => e.code === 'validation_failed');
  await assert.rejects(f.services.bets.adjust(fixed.ref, '1.00', ' '), (e: { code?: string }) => e.code === 'validation_failed');
  await assert.rejects(f.services.bets.adjust(fixed.ref, '1.00', '\u{1F3C7}'.repeat(501)), (e: { code?: string }) => e.code === 'validation_failed');
  await assert.rejects(f.services.bets.cancelBet({ tenantId: f.tenantId, betId: randomUUID() }), (e: { code?: string }) => e.code === 'bet_not_found');
  assert.deepEqual([await historyCount(fixed.betId), (await ops(fixed.betId)).length], before);
  const adjusted = await f.services.bets.adjust(fixed.ref, '2.50', `goodwill after a delay ${'\u{1F3C7}'.repeat(470)}`); // 493 characters, 963 UTF-16 units
  assert.deepEqual([adjusted.status, adjusted.adjusted], ['cashed_out', '2.50']);
  await f.services.catalogue.setStatus(MEETING, 4, 'closed');
  await f.services.settlement.resultRace(MEETING, 4, { placings: [[3], [1], [2]], dividends: { exacta: 5 } });
  await worker.drain();
  assert.deepEqual(await ops(fixed.betId), ['confirm 10.00', 'credit/cashout 25.40', 'credit/adjustreversetransaction 2.50']);
  assert.equal(await cash(fixed.userId), '1017.90');
  const history = await f.services.bets.history(fixed.ref);
  assert.deepEqual(history.map((h) => h.cause), ['placement', 'accepted', 'cash_out', 'adjustment']);
});

test('two concurrent cancels have one effect', async () => {
  await raceTwo(5);
  const b = await bet(5, 'WIN', [[1]], 4, 2);
  const results = await Promise.all([f.services.bets.cancelBet(b.ref), f.services.bets.cancelBet(b.ref)]);
  assert.deepEqual(results.map((r) => r.changed).sort(), [false, true]);
  await worker.drain();
  assert.deepEqual(await ops(b.betId), ['confirm 4.00', 'refundBet 4.00']);
  assert.equal(await cash(b.userId), '1000.00');
});

test('settled, refunded and cancelled bets reach the reporting store with their status and payout', async () => {
  await raceTwo(6);
  const winner = await bet(6, 'WIN', [[2]], 10, 3);
  const loser = await bet(6, 'WIN', [[5]], 4, 6);
  const cancelled = await bet(6, 'WIN', [[6]], 3, 7);
  await f.services.bets.cancelBet(cancelled.ref, { reason: 'customer request' });
  await f.services.catalogue.setStatus(MEETING, 6, 'closed');
  await f.services.settlement.resultRace(MEETING, 6, { placings: [[2], [1], [3]] });
  const row = async (betId: string) => (await f.db.pool.query<{ status: string; payout: string; net_result: string; resulted: boolean; revision: number }>(
    `SELECT status, payout::text, net_result::text, resulted, revision FROM reported_bets WHERE bet_id = $1`, [betId])).rows[0]!;
  assert.deepEqual(await row(winner.betId), { status: 'Paid', payout: '30.000000', net_result: '-20.000000', resulted: true, revision: 2 });
  assert.deepEqual(await row(loser.betId), { status: 'Paid', payout: '0.000000', net_result: '4.000000', resulted: true, revision: 2 });
  assert.deepEqual(await row(cancelled.betId), { status: 'Cancelled', payout: '3.000000', net_result: '0.000000', resulted: false, revision: 2 });
});

test('a race whose settlement fails does not hold up the others, and stays queued', async () => {
  await raceTwo(7);
  await raceTwo(8);
  const broken = await bet(7, 'WIN', [[1]], 2, 2);
  const fine = await bet(8, 'WIN', [[1]], 2, 2);
  // A leg on a race the catalogue does not have: its facts cannot be read, so its settlement fails.
  await f.db.pool.query(`INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, struck_at)
    SELECT tenant_id, bet_id, 2, 999999, 1, gen_random_uuid(), 'Nowhere R1', 'Nowhere', now(), '[[1]]', struck_at FROM bet_legs WHERE bet_id = $1`, [broken.betId]);
  for (const race of [7, 8]) await f.services.catalogue.setStatus(MEETING, race, 'closed');
  await f.services.catalogue.recordResult(MEETING, 7, { placings: [[1], [2], [3]] });
  await f.services.catalogue.recordResult(MEETING, 8, { placings: [[1], [2], [3]] });
  await assert.rejects(f.services.settlement.runPending(), /settlement of 1 queued race\(s\) failed/);
  assert.deepEqual([await status(broken.betId), await status(fine.betId)], ['accepted', 'settled']);
  const { rows } = await f.db.pool.query(`SELECT race_number, status FROM settlement_jobs WHERE meeting_id = $1 AND race_number IN (7, 8) ORDER BY race_number`, [MEETING]);
  assert.deepEqual(rows, [{ race_number: 7, status: 'pending' }, { race_number: 8, status: 'done' }]);
  await f.db.pool.query('DELETE FROM bet_legs WHERE bet_id = $1 AND leg = 2', [broken.betId]);
  await f.services.settlement.runPending();
  assert.equal(await status(broken.betId), 'settled');
});
