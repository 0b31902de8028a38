// What a result may settle. A return too large to store ($1,000,000,000,000 or more: the
// reporting store's NUMERIC(18,6)) once rolled back its whole settlement batch, for ever: now that
// bet is left with a problem, the others settle, and corrected dividends settle it; a fixed-odds
// bet that could return that much is refused at placement. The places a race pays are fixed by its
// first result: terms changed afterwards no longer re-settle it when its result is amended (a
// place bet paid on 3rd had its winnings taken back). And a final result must fill the positions
// its race's products need: a place left unlisted settled the bets on it as losers.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { bettingFixtureWithWorker, importRaces } from './betting-fixture.ts';

const MEETING = 770411;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;
before(async () => {
  f = await bettingFixtureWithWorker(MEETING);
  // Races 2 to 4: 8 runners, win and place (3 places paid under the VIC terms).
  await importRaces(f, MEETING, [2, 3, 4], ['win', 'place'], 8);
});
after(() => f.close());

async function place(userId: string, type: 'WIN' | 'EXACTA', selections: number[][], stake: number, price?: number) {
  const bet = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type, stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections, ...(price !== undefined && { price }) }],
  });
  assert.equal(bet.status, 'ACCEPTED', JSON.stringify(bet));
  return bet.id;
}

const statusOf = async (betId: string) => (await f.db.pool.query<{ status: string }>('SELECT status FROM bets WHERE bet_id = $1', [betId])).rows[0]!.status;
const ops = async (betId: string) => (await f.db.pool.query<{ call: string }>(
  "SELECT op || coalesce('/' || (extra->>'transactionType'), '') || ' ' || amount AS call FROM wallet_calls WHERE bet_id = $1 AND op <> 'reserve' AND NOT placement_guard ORDER BY seq",
  [betId])).rows.map((r) => r.call);

test('a fixed-odds bet that could return $1,000,000,000,000 or more is refused; nothing is written', async () => {
  await f.services.catalogue.setPrice(MEETING, 1, 4, { win: 10000 });
  const bets = async () => (await f.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bets')).rows[0]!.n;
  const before = await bets();
  await assert.rejects(f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'WIN', stake: 100_000_000, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[4]], price: 10000 }],
  }), (e: unknown) => e instanceof AppError && e.code === 'invalid_stake' && /could return 10000 × the stake, \$1,000,000,000,000 or more/.test(e.message));
  assert.equal(await bets(), before);
});

test('a tote return too large to store leaves that bet unsettled with a problem; the race\'s other bets settle', async () => {
  const whale = randomUUID();
  await f.sandbox.seedUser(whale, { cash: '60000000.00' });
  const exacta = await place(whale, 'EXACTA', [[1], [2]], 50_000_000);
  const winner = await place(randomUUID(), 'WIN', [[1]], 10, 3);
  const loser = await place(randomUUID(), 'WIN', [[3]], 10, 5);
  await f.services.catalogue.setStatus(MEETING, 1, 'closed');

  // An exacta dividend typed as 100,000.00 instead of 12.40: $5,000,000,000,000 for this bet.
  const typo = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]], dividends: { exacta: 100000 } });
  assert.equal(typo.settlement!.bets_changed, 2);
  assert.deepEqual(typo.settlement!.problems, [`bet ${exacta}: the bet would return 5000000000000.00, $1,000,000,000,000 or more, beyond what can be stored or paid: check the dividends`]);
  assert.deepEqual([await statusOf(exacta), await statusOf(winner), await statusOf(loser)], ['accepted', 'settled', 'settled']);

  const fixed = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]], dividends: { exacta: 12.4 } });
  assert.deepEqual([fixed.settlement!.bets_changed, fixed.settlement!.problems], [1, []]);
  await f.worker.drain();
  assert.deepEqual(await ops(exacta), ['confirm 50000000.00', 'settleBet 620000000.00']);
  assert.deepEqual(await ops(winner), ['confirm 10.00', 'settleBet 30.00']);
  assert.equal((await f.sandbox.balances(whale)).cash, '630000000.00');
});

test('an amended result keeps the places paid when the race was first resulted, whatever the terms say since', async () => {
  const third = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'PLACE', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 2, selections: [[3]], price: 1.5 }],
  });
  assert.equal(third.status, 'ACCEPTED');
  await f.services.catalogue.setStatus(MEETING, 2, 'closed');
  await f.services.settlement.resultRace(MEETING, 2, { placings: [[1], [2], [3]] }); // 8 starters: 3 places
  await f.worker.drain();
  assert.deepEqual(await ops(third.id), ['confirm 10.00', 'settleBet 15.00']);

  await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 8, places: 2 }, { min_starters: 5, places: 2 }]);
  try {
    const amended = await f.services.settlement.resultRace(MEETING, 2, { placings: [[2], [1], [3]] }); // a protest upheld: 1st and 2nd swap
    assert.equal(amended.amended, true);
    await f.worker.drain();
    assert.deepEqual(await ops(third.id), ['confirm 10.00', 'settleBet 15.00'], 'still paid on 3rd: nothing taken back');
    const { rows } = await f.db.pool.query<{ places_paid: number }>(
      'SELECT places_paid FROM race_results WHERE meeting_id = $1 AND race_number = 2 ORDER BY version', [MEETING]);
    assert.deepEqual(rows.map((r) => r.places_paid), [3, 3]);
  } finally {
    await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 8, places: 3 }, { min_starters: 5, places: 2 }]);
  }
});

test('a final result placing fewer runners than the places paid is refused unless short_field says fewer finished', async () => {
  const onThird = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'PLACE', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 3, selections: [[3]], price: 1.5 }],
  });
  await f.services.catalogue.setStatus(MEETING, 3, 'closed');
  await assert.rejects(f.services.settlement.resultRace(MEETING, 3, { placings: [[1], [2]] }),
    /race 3 of meeting 770411: the 3 places paid need 3 placed runners \(8 starters\); the placings fill 2/);
  assert.equal((await f.services.catalogue.getRace(MEETING, 3))!.status, 'closed', 'nothing recorded');
  const short = await f.services.settlement.resultRace(MEETING, 3, { placings: [[1], [2]], short_field: true });
  assert.equal(short.status, 'final');
  await f.worker.drain();
  assert.deepEqual(await ops(onThird.id), ['confirm 10.00', 'settleBet 0.00'], 'nobody finished third');
});

test('an interim result fixes the places paid too: the final one after a change of terms pays by them', async () => {
  const third = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'PLACE', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 4, selections: [[3]], price: 1.5 }],
  });
  await f.services.catalogue.setStatus(MEETING, 4, 'closed');
  await f.services.settlement.resultRace(MEETING, 4, { placings: [[1], [2], [3]], interim: true });
  await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 5, places: 2 }]);
  try {
    await f.services.settlement.resultRace(MEETING, 4, { placings: [[1], [2], [3]] });
    await f.worker.drain();
    assert.deepEqual(await ops(third.id), ['confirm 10.00', 'settleBet 15.00']);
  } finally {
    await f.services.catalogue.setPlaceTerms('VIC', [{ min_starters: 8, places: 3 }, { min_starters: 5, places: 2 }]);
  }
});
