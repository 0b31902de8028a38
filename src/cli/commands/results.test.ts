// `wagerline race result | show | status … abandoned | scratch` and `place-terms set | list` through
// the real bin/wagerline, on a database where bets were placed in-process (test/betting-fixture.ts):
// one JSON object on stdout with the settlement summary; every refusal one line on stderr.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from '../../../test/betting-fixture.ts';
import { cliChecks, cliEnv } from '../../../test/helpers/cli.ts';

const M = 770301;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let env: Record<string, string>;

before(async () => {
  f = await bettingFixture(M);
  env = cliEnv(f.db.url);
  // Races 2 to 4 of the fixture's meeting, as race 1: runners 1-4 at win prices 3 to 6.
  await f.services.catalogue.importCatalog({
    meeting_id: M, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [2, 3, 4].map((n) => ({ race_number: n, start_time: new Date(Date.now() + 3600_000 * n).toISOString(), products: ['win', 'exacta'],
      runners: [1, 2, 3, 4].map((r) => ({ number: r, name: `R${r}`, win: 2 + r, place: 1.5 })) })),
  });
});
after(() => f.close());

const { ok, refused } = cliChecks(() => env);

async function win(race: number, runner: number) {
  const userId = randomUUID();
  const bet = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId: M, raceNumber: race, selections: [[runner]], price: 2 + runner }],
  });
  assert.equal(bet.status, 'ACCEPTED');
  return bet.id;
}

const statusOf = async (betId: string) => (await f.db.pool.query('SELECT status, result, payout, refunded FROM bets WHERE bet_id = $1', [betId])).rows[0];

test('race result: a final result settles the race now; race show shows it; an amendment settles the difference', async () => {
  const winner = await win(1, 1);
  const loser = await win(1, 2);
  assert.equal((await ok(['race', 'show', String(M), '1'])).result, null);
  const closed = await ok(['race', 'status', String(M), '1', 'closed']);
  assert.deepEqual([closed.status, closed.settlement], ['closed', null]);

  const result = await ok(['race', 'result', String(M), '1', '--placings', '[[1],[2],[3]]', '--dividends', '{"exacta": 30.0}']);
  assert.deepEqual({ ...result, settlement: undefined }, {
    meeting_id: M, race_number: 1, status: 'final', previous_status: 'closed', version: 1, amended: false, changed: true,
    placings: [[1], [2], [3]], dividends: { exacta: [{ dividend: '30' }] }, settlement: undefined,
  });
  assert.deepEqual(result.settlement, { jobs: 1, bets_seen: 2, bets_changed: 2, calls_queued: 2, problems: [] });
  assert.deepEqual(await statusOf(winner), { status: 'settled', result: 'won', payout: '30.00', refunded: '0.00' });
  assert.deepEqual(await statusOf(loser), { status: 'settled', result: 'lost', payout: '0.00', refunded: '0.00' });

  const shown = await ok(['race', 'show', String(M), '1']);
  assert.equal(shown.status, 'final');
  assert.deepEqual({ ...shown.result, recorded_at: undefined }, { version: 1, final: true, placings: [[1], [2], [3]], dividends: { exacta: [{ dividend: '30' }] }, recorded_at: undefined });

  const amended = await ok(['race', 'result', String(M), '1', '--placings', '[[2],[1],[3]]']);
  assert.deepEqual([amended.version, amended.amended, amended.settlement.bets_changed], [2, true, 2]);
  assert.deepEqual(await statusOf(loser), { status: 'settled', result: 'won', payout: '40.00', refunded: '0.00' });
});

test('race result --interim is shown and never settled; an interim result on a final race is refused', async () => {
  const bet = await win(2, 3);
  await f.services.catalogue.setStatus(M, 2, 'closed');
  const interim = await ok(['race', 'result', String(M), '2', '--placings', '[[3],[4]]', '--interim']);
  assert.deepEqual([interim.status, interim.version, interim.settlement], ['interim', 1, null]);
  assert.equal((await statusOf(bet)).status, 'accepted');
  const shown = await ok(['race', 'show', String(M), '2']);
  assert.deepEqual([shown.status, shown.result.final, shown.result.placings], ['interim', false, [[3], [4]]]);
  const final = await ok(['race', 'result', String(M), '2', '--placings', '[[3],[4],[1]]']);
  assert.deepEqual([final.status, final.previous_status, final.settlement.bets_changed], ['final', 'interim', 1]);
  await refused(['race', 'result', String(M), '2', '--placings', '[[3]]', '--interim'], /race 2 of meeting 770301 is final: an interim result can no longer be given/);
});

test('race scratch and race status abandoned refund their bets before the command returns', async () => {
  const onScratched = await win(3, 4);
  const other = await win(3, 1);
  const scratched = await ok(['race', 'scratch', String(M), '3', '4']);
  assert.deepEqual([scratched.runner.scratched, scratched.changed], [true, true]);
  assert.deepEqual(scratched.settlement, { jobs: 1, bets_seen: 2, bets_changed: 1, calls_queued: 1, problems: [] });
  assert.deepEqual(await statusOf(onScratched), { status: 'refunded', result: null, payout: '0.00', refunded: '10.00' });
  assert.equal((await statusOf(other)).status, 'accepted');

  const onAbandoned = await win(4, 2);
  const abandoned = await ok(['race', 'status', String(M), '4', 'abandoned']);
  assert.deepEqual([abandoned.status, abandoned.previous_status, abandoned.changed], ['abandoned', 'open', true]);
  assert.deepEqual(abandoned.settlement, { jobs: 1, bets_seen: 1, bets_changed: 1, calls_queued: 1, problems: [] });
  assert.deepEqual(await statusOf(onAbandoned), { status: 'refunded', result: null, payout: '0.00', refunded: '10.00' });
  const { rows } = await f.db.pool.query("SELECT op, amount FROM wallet_calls WHERE bet_id = $1 AND op = 'refundBet' AND NOT placement_guard", [onAbandoned]);
  assert.deepEqual(rows, [{ op: 'refundBet', amount: '10.00' }]);
});

test('race result refusals: bad JSON, unknown race, open race, scratched runner placed, bad dividends', async () => {
  // Race 3 is open (runner 4 scratched by the test above); independent refusals run side by side.
  await Promise.all([
    refused(['race', 'result', String(M), '3', '--placings', '[[1]'], /option '--placings <json>'.*--placings is not valid JSON/),
    refused(['race', 'result', String(M), '3', '--placings', '[[1]]', '--dividends', '{exacta: 3}'], /--dividends is not valid JSON/),
    refused(['race', 'result', String(M), '42', '--placings', '[[1]]'], /no race 42 of meeting 770301/),
    refused(['race', 'result', String(M), '3', '--placings', '[[1]]'], /race 3 of meeting 770301: race is open and cannot become final .*close it first/),
  ]);
  await f.services.catalogue.setStatus(M, 3, 'closed');
  await Promise.all([
    refused(['race', 'result', String(M), '3', '--placings', '[[4],[1]]'], /placings\[0\]: runner 4 is scratched and cannot be placed/),
    refused(['race', 'result', String(M), '3', '--placings', '[[1],[2]]', '--dividends', '{"pick6": 3}'], /dividends.pick6: not a tote product/),
  ]);
  assert.equal(await f.services.catalogue.result(M, 3), null);
  assert.equal((await f.services.catalogue.getRace(M, 3))!.status, 'closed');
});

test('place-terms set and list: checked, stored, * first; settlement reads them', async () => {
  const list = await ok(['place-terms', 'list']);
  assert.deepEqual(list.place_terms.map((t: { jurisdiction: string; terms: unknown }) => [t.jurisdiction, t.terms]),
    [['*', [{ min_starters: 8, places: 3 }, { min_starters: 5, places: 2 }]]]);
  const set = await ok(['place-terms', 'set', 'vic', '--terms', '[{"min_starters":2,"places":1},{"min_starters":4,"places":2}]']);
  assert.deepEqual([set.jurisdiction, set.terms], ['VIC', [{ min_starters: 4, places: 2 }, { min_starters: 2, places: 1 }]]);
  assert.match(set.updated_at, /^\d{4}-\d\d-\d\dT/);
  await f.services.catalogue.setPlaceTerms('NSW', [{ min_starters: 8, places: 3 }]);
  assert.deepEqual((await ok(['place-terms', 'list'])).place_terms.map((t: { jurisdiction: string }) => t.jurisdiction), ['*', 'NSW', 'VIC']);
  // The meeting's races (VIC) have 4 starters: race 4, not resulted yet, pays 2 places now; race 1
  // keeps the none it was resulted with under the '*' terms (docs/settlement-running.md, Places paid).
  const facts = await f.services.catalogue.raceFacts([{ meetingId: M, raceNumber: 1 }, { meetingId: M, raceNumber: 4 }]);
  assert.deepEqual([facts.get(`${M}:4`)!.placesPaid, facts.get(`${M}:1`)!.placesPaid], [2, 0]);

  // Every rule of the terms is tested through the API (results.http.test.ts); here, that the CLI says it.
  await Promise.all([
    refused(['place-terms', 'set', 'VIC', '--terms', '[{"min_starters":8,"places":3},{"min_starters":8,"places":2}]'], /min_starters 8 is given twice/),
    refused(['place-terms', 'set', 'VIC', '--terms', '[{"min'], /--terms is not valid JSON/),
    refused(['place-terms', 'set', 'V I C', '--terms', '[{"min_starters":8,"places":3}]'], /jurisdiction must be a jurisdiction code such as VIC, or \*/),
  ]);
  assert.deepEqual((await f.services.catalogue.placeTerms()).place_terms.find((t) => t.jurisdiction === 'VIC')!.terms, set.terms);
});

test('race result whose settling fails says the result is recorded and stays queued, on one line, non-zero', async () => {
  // Race 3 is closed with a bet on runner 1 (above). A second leg on a race the catalogue lacks makes its settlement fail.
  const { rows: [leg] } = await f.db.pool.query(
    "SELECT l.bet_id FROM bet_legs l JOIN bets b USING (tenant_id, bet_id) WHERE l.meeting_id = $1 AND l.race_number = 3 AND b.status = 'accepted'", [M]);
  await f.db.pool.query(`INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, struck_at)
    SELECT tenant_id, bet_id, 2, 999999, 1, gen_random_uuid(), 'Nowhere R1', 'Nowhere', now(), '[[1]]', struck_at FROM bet_legs WHERE bet_id = $1`, [leg.bet_id]);
  await refused(['race', 'result', String(M), '3', '--placings', '[[1],[2],[3]]'],
    /^wagerline: the final result of race 3 of meeting 770301 \(version 1\) is recorded, but settling its bets failed: .*\(the settlement stays queued; serve or the next race command resumes it\)$/);
  const shown = await ok(['race', 'show', String(M), '3']);
  assert.deepEqual([shown.status, shown.result.version, shown.result.final], ['final', 1, true]);
  const { rows } = await f.db.pool.query("SELECT status FROM settlement_jobs WHERE meeting_id = $1 AND race_number = 3 AND cause = 'result'", [M]);
  assert.deepEqual(rows, [{ status: 'pending' }]);
  await f.db.pool.query('DELETE FROM bet_legs WHERE bet_id = $1 AND leg = 2', [leg.bet_id]);
  assert.deepEqual((await f.services.settlement.runPending()).bets_changed, 1);
});
