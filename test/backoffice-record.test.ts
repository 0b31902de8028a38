// The back-office record of placed and settled bets, field by field: metadata of a fixed-odds bet,
// a flexi tote bet and a partially accepted one; legs with event, meeting, sport, places paid and
// dividends once the race is resulted; the history of states; the same parts whether read with a
// page or on their own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { post, walletBench } from './helpers/backoffice.ts';

const MEETING = 880202;
let bench: Awaited<ReturnType<typeof walletBench>>;
const placed: Record<string, { userId: string; betId: string }> = {};

const QUERY = `query GetBets($input: GetBetsInput!) { getBets(input: $input) { bets { id created_at
  metadata { created_at tenant_id user_id account_id account_type ticket_id fixed_odds original_odds amount original_amount percentage
    original_percentage is_partial status source medium bet_limit_id reason reason_id message action_id liability_percentage liability
    is_fixed is_flexi is_boxed bet_type teller_id is_cashout is_livebet ip_address result payout refunded cash_out adjusted settled_at }
  legs { leg_number bet_type dividend event_id event_name event_time leg_type meeting_id meeting_name postions_paid positions_paid
    product_keyword sport_id sport_name race_number selections price }
  history { seq from to cause } } } }`;

async function recordOf(betId: string) {
  const { res, body } = await post(bench.ctx, bench.client.headers, QUERY, { input: { tenant: { ids: [bench.client.tenantId], bet_ids: [betId] } } }, 'GetBets');
  assert.equal(res.statusCode, 200, res.body.slice(0, 300));
  return body.data!.getBets.bets[0];
}

before(async () => {
  bench = await walletBench(MEETING);
  const leg = (selections: number[][], price?: number) => [{ meetingId: MEETING, raceNumber: 1, selections, ...(price && { price }) }];
  placed.win = await bench.place({ type: 'WIN', stake: 10, legs: leg([[2]], 4) });
  placed.exacta = await bench.place({ type: 'EXACTA', stake: 3, boxed: true, legs: leg([[1, 2, 3]]) });
  await bench.ctx.services.betting.setLimits(bench.client.tenantId, { maxStake: '5' });
  placed.partial = await bench.place({ type: 'PLACE', stake: 10, legs: leg([[5]], 1.5) });
  await bench.ctx.services.betting.setLimits(bench.client.tenantId, { maxStake: null });
});
after(() => bench.close());

test('metadata of a fixed-odds bet as taken, then settled', async () => {
  const before = await recordOf(placed.win!.betId);
  assert.equal(before.id, placed.win!.betId);
  const m = before.metadata;
  assert.deepEqual({ ...m, created_at: undefined, ticket_id: undefined }, {
    created_at: undefined, tenant_id: bench.client.tenantId, user_id: placed.win!.userId, account_id: placed.win!.userId,
    account_type: 'cash', ticket_id: undefined, fixed_odds: '4', original_odds: '4', amount: '10.00', original_amount: '10.00',
    percentage: null, original_percentage: null, is_partial: false, status: 'ACCEPTED', source: 'frontend', medium: 'app',
    bet_limit_id: null, reason: null, reason_id: null, message: null, action_id: '2', liability_percentage: '100.00', liability: '40.00',
    is_fixed: true, is_flexi: false, is_boxed: false, bet_type: 'WIN', teller_id: null, is_cashout: false, is_livebet: false,
    ip_address: '203.0.113.7', result: null, payout: '0.00', refunded: '0.00', cash_out: null, adjusted: '0.00', settled_at: null,
  });
  assert.equal(m.created_at, before.created_at);
  assert.match(m.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.match(m.ticket_id, /^[0-9a-f-]{36}$/);
  assert.equal(before.legs[0].dividend, null, 'no result yet');
});

test('a flexi tote bet and a partially accepted one', async () => {
  const exacta = (await recordOf(placed.exacta!.betId)).metadata;
  assert.deepEqual([exacta.bet_type, exacta.is_boxed, exacta.is_fixed, exacta.is_flexi, exacta.percentage, exacta.original_percentage, exacta.fixed_odds, exacta.liability, exacta.liability_percentage],
    ['EXACTA', true, false, true, '50.0000', '50.0000', null, '0.00', '0.00']);
  const partial = (await recordOf(placed.partial!.betId)).metadata;
  assert.deepEqual([partial.status, partial.amount, partial.original_amount, partial.is_partial, partial.bet_limit_id, partial.reason_id, partial.liability],
    ['PARTIALLY_ACCEPTED', '5.00', '10.00', true, 'max_stake', 'max_stake', '7.50']);
  assert.equal(typeof partial.message, 'string');
  assert.equal(partial.reason, partial.message);
});

test('after the result: legs with places paid, sport and dividends; metadata settled; history', async () => {
  await bench.ctx.services.catalogue.setStatus(MEETING, 1, 'closed');
  await bench.ctx.services.settlement.resultRace(MEETING, 1, { placings: [[2], [1], [5]], dividends: { exacta: 12.4 } });
  await bench.worker.drain();
  const win = await recordOf(placed.win!.betId);
  const race = await bench.ctx.services.catalogue.requireRace(MEETING, 1);
  assert.deepEqual(win.legs, [{
    leg_number: 1, bet_type: 'WIN', dividend: '4.00', event_id: race.event_id, event_name: 'Caulfield R1', event_time: race.start_time,
    leg_type: 'racing', meeting_id: String(MEETING), meeting_name: 'Caulfield', postions_paid: 3, positions_paid: 3, product_keyword: 'win',
    sport_id: 'T', sport_name: 'Thoroughbred racing', race_number: 1, selections: [[2]], price: '4',
  }]);
  // Settled: the book has paid what it owed (payout) and stands to pay nothing more.
  assert.deepEqual([win.metadata.status, win.metadata.result, win.metadata.payout, win.metadata.action_id, win.metadata.liability],
    ['SETTLED', 'WON', '40.00', '3', '0.00']);
  assert.ok(!Number.isNaN(Date.parse(win.metadata.settled_at)));
  assert.deepEqual(win.history, [
    { seq: 1, from: null, to: 'PENDING', cause: 'placement' },
    { seq: 2, from: 'PENDING', to: 'ACCEPTED', cause: 'accepted' },
    { seq: 3, from: 'ACCEPTED', to: 'SETTLED', cause: 'result' },
  ]);
  const exacta = await recordOf(placed.exacta!.betId);
  assert.deepEqual([exacta.legs[0].dividend, exacta.legs[0].product_keyword, exacta.metadata.payout], ['12.40', 'exacta', '6.20']);
  const place = await recordOf(placed.partial!.betId);
  assert.deepEqual([place.legs[0].dividend, place.metadata.result, place.metadata.payout], ['1.50', 'WON', '7.50']);
});

test('legs, history and wallet calls read with a page are those read on their own, to the millisecond', async () => {
  const { pool } = bench.ctx.db;
  const tenantId = bench.client.tenantId;
  // Instants with microseconds, as now() writes them: both ways must drop the same digits.
  await pool.query("UPDATE bet_history SET at = at + interval '0.000999 s' WHERE tenant_id = $1", [tenantId]);
  await pool.query("UPDATE bet_legs SET event_time = event_time + interval '0.000501 s' WHERE tenant_id = $1", [tenantId]);
  await pool.query("UPDATE wallet_call_attempts SET started_at = started_at + interval '0.000123 s' WHERE tenant_id = $1", [tenantId]);
  const { backofficeReads: reads, wallet } = bench.ctx.services;
  const query = { tenantIds: [tenantId], betIds: Object.values(placed).map((p) => p.betId) };
  const page = await reads.bets(query, { legs: true, walletCalls: true, history: true });
  const { bets } = await reads.bets(query);
  const [legs, history] = await Promise.all([reads.legs(bets), reads.history(bets)]);
  assert.deepEqual(page.bets.map((b) => [b.legs, b.history]), bets.map((_, i) => [legs[i], history[i]]));
  assert.deepEqual(page.bets.map((b) => b.metadata), bets.map((b) => b.metadata));
  let attempts = 0;
  for (const bet of bets) {
    const calls = (await wallet.callsOfBets([{ tenant_id: tenantId, bet_id: bet.id }])).get(`${tenantId}:${bet.id}`)!;
    assert.deepEqual(calls, (await wallet.callsOfBet(bet.id, tenantId)).calls);
    attempts += calls.reduce((n, c) => n + c.attempt_log.length, 0);
  }
  assert.ok(attempts > 0, 'calls with attempts');
});

test('a bet left pending by an interrupted placement reads as the frontend reads it, and nothing is written', async () => {
  const [betId] = await insertBulkBets(bench.ctx.db.pool, { tenantId: bench.client.tenantId, count: 1 });
  await bench.ctx.db.pool.query("UPDATE bets SET status = 'pending', accepted_stake = NULL, fixed_odds = NULL WHERE bet_id = $1", [betId]);
  const m = (await recordOf(betId!)).metadata;
  assert.deepEqual([m.status, m.amount, m.reason_id, m.liability], ['REJECTED', '0.00', 'placement_interrupted', '0.00']);
  const stored = await bench.ctx.db.pool.query<{ status: string }>('SELECT status FROM bets WHERE bet_id = $1', [betId]);
  assert.equal(stored.rows[0]!.status, 'pending');
});
