// The places a race pays are fixed by its first result: place terms changed afterwards (for races
// to come) do not re-settle it when its result is amended. Before, an amendment read today's terms,
// and a place bet already paid on 3rd had its winnings taken back after the terms went to 2 places.
// And a final result must fill them: a place left unlisted settled the bets on it as losers.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770521;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: { drain(): Promise<void>; stop(): Promise<void> };
before(async () => {
  f = await bettingFixture(MEETING);
  worker = f.services.wallet.createWorker({ listen: false });
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 2, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place'],
      runners: Array.from({ length: 8 }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 2 + i, place: 1.5 })) }],
  });
});
after(async () => {
  await worker.stop();
  await f.close();
});

const ops = async (betId: string) => (await f.db.pool.query<{ call: string }>(
  "SELECT op || coalesce('/' || (extra->>'transactionType'), '') || ' ' || amount AS call FROM wallet_calls WHERE bet_id = $1 AND op <> 'reserve' AND NOT placement_guard ORDER BY seq",
  [betId])).rows.map((r) => r.call);

test('an amended result keeps the places paid when the race was first resulted, whatever the terms say since', async () => {
  const third = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'PLACE', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 2, selections: [[3]], price: 1.5 }],
  });
  assert.equal(third.status, 'ACCEPTED');
  await f.services.catalogue.setStatus(MEETING, 2, 'closed');
  await f.services.settlement.resultRace(MEETING, 2, { placings: [[1], [2], [3]] }); // 8 starters: 3 places
  await worker.drain();
  assert.deepEqual(await ops(third.id), ['confirm 10.00', 'settleBet 15.00']);

  await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 8, places: 2 }, { min_starters: 5, places: 2 }]);
  try {
    const amended = await f.services.settlement.resultRace(MEETING, 2, { placings: [[2], [1], [3]] }); // a protest upheld: 1st and 2nd swap
    assert.equal(amended.amended, true);
    await worker.drain();
    assert.deepEqual(await ops(third.id), ['confirm 10.00', 'settleBet 15.00'], 'still paid on 3rd: nothing taken back');
    const { rows } = await f.db.pool.query<{ places_paid: number }>(
      'SELECT places_paid FROM race_results WHERE meeting_id = $1 AND race_number = 2 ORDER BY version', [MEETING]);
    assert.deepEqual(rows.map((r) => r.places_paid), [3, 3]);
  } finally {
    await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 8, places: 3 }, { min_starters: 5, places: 2 }]);
  }
});

test('a final result placing fewer runners than the places paid is refused unless short_field says fewer finished', async () => {
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 3, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place'],
      runners: Array.from({ length: 8 }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 2 + i, place: 1.5 })) }],
  });
  const onThird = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'PLACE', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 3, selections: [[3]], price: 1.5 }],
  });
  await f.services.catalogue.setStatus(MEETING, 3, 'closed');
  await assert.rejects(f.services.settlement.resultRace(MEETING, 3, { placings: [[1], [2]] }),
    /race 3 of meeting 770521: the 3 places paid need 3 placed runners \(8 starters\); the placings fill 2/);
  assert.equal((await f.services.catalogue.getRace(MEETING, 3))!.status, 'closed', 'nothing recorded');
  const short = await f.services.settlement.resultRace(MEETING, 3, { placings: [[1], [2]], short_field: true });
  assert.equal(short.status, 'final');
  await worker.drain();
  assert.deepEqual(await ops(onThird.id), ['confirm 10.00', 'settleBet 0.00'], 'nobody finished third');
});
