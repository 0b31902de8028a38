// A quaddie's or daily double's dividends are declared on its last race, one per winning line of
// runner numbers: two pools of one product ending on the same race would read the same dividends,
// each pool's winners paid the other's. Such pools are refused at import, in one file or against
// bets still to settle on a pool the meeting has replaced.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { bettingFixtureWithWorker } from './betting-fixture.ts';

const MEETING = 770501;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;
before(async () => {
  f = await bettingFixtureWithWorker(MEETING);
});
after(() => f.close());

const importMeeting = (meetingId: number, pools: Array<{ product: string; races: number[] }>) => f.services.catalogue.importCatalog({
  meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
  races: [1, 2, 3, 4, 5].map((race_number) => ({ race_number, start_time: new Date(Date.now() + 3600_000 * race_number).toISOString(), products: ['win'],
    runners: [1, 2, 3, 4, 5].map((n) => ({ number: n, name: `R${n}`, win: 2 + n })) })),
  pools,
});

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const error = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof AppError, `expected a refusal, got ${String(error)}`);
  return error;
}

const poolsOf = async (meetingId: number) => (await f.services.catalogue.getPools(meetingId)).map((p) => `${p.product} ${p.races.join(',')}`);

test('two pools of one product ending on the same race are refused, naming the second; other products may end there', async () => {
  const error = await refusal(importMeeting(770502, [
    { product: 'quaddie', races: [1, 2, 3, 5] }, { product: 'dailydouble', races: [4, 5] }, { product: 'quaddie', races: [2, 3, 4, 5] }]));
  assert.equal(error.code, 'validation_failed');
  assert.deepEqual(error.extensions?.errors, [{ field: 'pools/2/races',
    message: 'ends on race 5 as pools/0 (quaddie of races 1, 2, 3, 5) does: a quaddie\'s dividends are declared on its last race, so two quaddies cannot end on the same race' }]);
  assert.deepEqual(await poolsOf(770502), [], 'nothing imported');
  await importMeeting(770502, [{ product: 'quaddie', races: [1, 2, 3, 5] }, { product: 'dailydouble', races: [4, 5] }]);
  assert.deepEqual(await poolsOf(770502), ['quaddie 1,2,3,5', 'dailydouble 4,5']);
});

test('a replaced pool whose bets are still to settle keeps its last race: a new pool of its product may not end there', async () => {
  await importMeeting(770503, [{ product: 'quaddie', races: [1, 2, 3, 5] }]);
  const placed = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'QUADDIE', stake: 1, legs: [1, 2, 3, 5].map((raceNumber) => ({ meetingId: 770503, raceNumber, selections: [[1]] })),
  });
  assert.equal(placed.status, 'ACCEPTED');
  const error = await refusal(importMeeting(770503, [{ product: 'quaddie', races: [2, 3, 4, 5] }]));
  assert.equal(error.code, 'conflict');
  assert.match(error.message, /nothing imported: meeting 770503: pools\/0 \(quaddie of races 2, 3, 4, 5\) ends on race 5 as the quaddie of races 1, 2, 3, 5 does, which has bets still to settle on race 5's dividends/);
  assert.deepEqual(await poolsOf(770503), ['quaddie 1,2,3,5'], 'nothing imported');
  // The same pool again, or one ending elsewhere, is taken.
  await importMeeting(770503, [{ product: 'quaddie', races: [1, 2, 3, 5] }, { product: 'quaddie', races: [1, 2, 3, 4] }]);
  // Once the old pool's bets are closed, its last race is free again.
  await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: placed.id }, { reason: 'test' });
  await importMeeting(770503, [{ product: 'quaddie', races: [2, 3, 4, 5] }]);
  assert.deepEqual(await poolsOf(770503), ['quaddie 2,3,4,5']);
});

test('a pool\'s dividends are taken only on its last race, and on the last race of a replaced pool whose bets are still to settle', async () => {
  await importMeeting(770504, [{ product: 'quaddie', races: [1, 2, 3, 5] }]);
  const placed = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'QUADDIE', stake: 1, legs: [1, 2, 3, 5].map((raceNumber) => ({ meetingId: 770504, raceNumber, selections: [[1]] })),
  });
  assert.equal(placed.status, 'ACCEPTED');
  await importMeeting(770504, [{ product: 'quaddie', races: [1, 2, 3, 4] }]); // the bet keeps its races 1, 2, 3, 5
  for (const n of [1, 2, 3, 4, 5]) await f.services.catalogue.setStatus(770504, n, 'closed');
  const result = (n: number, dividends: Record<string, unknown> = {}) => f.services.settlement.resultRace(770504, n, { placings: [[1], [2]], dividends });
  const error = await refusal(result(3, { quaddie: 250 }));
  assert.equal(error.code, 'validation_failed');
  assert.match(error.message, /race 3 of meeting 770504: dividends\.quaddie: race 3 is not the last race of a quaddie of the meeting: the quaddie of races 1, 2, 3, 4 ends on race 4; declare its dividends there/);
  for (const n of [1, 2, 3]) await result(n);
  await result(4, { quaddie: 180 });
  await result(5, { quaddie: 250 });
  const { rows } = await f.db.pool.query('SELECT status, result, payout FROM bets WHERE bet_id = $1', [placed.id]);
  assert.deepEqual(rows, [{ status: 'settled', result: 'won', payout: '250.00' }], 'settled by the dividend of its own last race');
});
