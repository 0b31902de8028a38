// A leg's dividend in the back-office page is the price less the late deductions declared after
// the leg was struck (docs/settlement.md), read from the page's own legs (betsPage legs_json): a
// page whose legs lacked when they were struck once failed whole on such a race.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { post, walletBench } from './helpers/backoffice.ts';

const MEETING = 880977;
let bench: Awaited<ReturnType<typeof walletBench>>;
before(async () => { bench = await walletBench(MEETING); });
after(() => bench.close());

const QUERY = `query GetBets($input: GetBetsInput!) { getBets(input: $input) { bets { id legs { leg_number dividend price } } } }`;

test('a won WIN leg in a race with a late deduction: GetBets with legs shows the deducted dividend', async () => {
  const placed = await bench.place({ type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }] });
  bench.ctx.clock.advance(1000); // the scratching a second after the bet was struck
  await bench.ctx.services.catalogue.scratch(MEETING, 1, 8, { win_deduction: 15 });
  await bench.ctx.services.catalogue.setStatus(MEETING, 1, 'closed');
  await bench.ctx.services.settlement.resultRace(MEETING, 1, { placings: [[2], [1], [5]] });
  await bench.worker.drain();
  const { res, body } = await post(bench.ctx, bench.client.headers, QUERY,
    { input: { tenant: { ids: [bench.client.tenantId], bet_ids: [placed.betId] } } }, 'GetBets');
  assert.equal(res.statusCode, 200, res.body.slice(0, 400));
  assert.equal((body as { errors?: unknown }).errors, undefined, res.body.slice(0, 400));
  // 1 + 3 × 0.85 = 3.55
  assert.equal(body.data!.getBets.bets[0].legs[0].dividend, '3.55', res.body.slice(0, 400));

  // A leg struck after the scratching (a price that changed before its take) takes no deduction.
  await bench.ctx.db.pool.query("UPDATE bet_legs SET struck_at = struck_at + interval '2 seconds' WHERE bet_id = $1", [placed.betId]);
  const again = await post(bench.ctx, bench.client.headers, QUERY, { input: { tenant: { ids: [bench.client.tenantId], bet_ids: [placed.betId] } } }, 'GetBets');
  assert.equal(again.body.data!.getBets.bets[0].legs[0].dividend, '4.00', again.res.body.slice(0, 400));
});
