// Results and place terms through the catalogue's admin API (scope `catalog`), over app.inject():
// a final result is 202 and its race is settled in the background; interim is 200; every refusal
// a 4xx problem that writes nothing.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';

let ctx: TestContext;
let admin: Record<string, string>;
let uploader: Record<string, string>;
const M = 900101;
const race = (n: number) => `/catalog/meetings/${M}/races/${n}`;

function call(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown) {
  return ctx.app.inject({ method, url, headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { payload: JSON.stringify(body) }) });
}

before(async () => {
  ctx = await createTestApp();
  admin = (await seedClient(ctx, { scopes: ['catalog'] })).auth;
  uploader = (await seedClient(ctx, { scopes: ['upload'] })).auth;
  await ctx.services.catalogue.importCatalog({
    meeting_id: M, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    races: [1, 2, 3].map((n) => ({ race_number: n, start_time: `2026-11-21T1${n}:10:00+11:00`, products: ['win', 'exacta'],
      runners: [1, 2, 3, 4].map((r) => ({ number: r, name: `R${r}`, win: 2 + r, ...(r === 4 && { scratched: true }) })) })),
  });
  for (const n of [1, 2]) await ctx.services.catalogue.setStatus(M, n, 'closed');
});
after(() => ctx.close());

/** The settlement jobs of a race once the background settlement has run them all. */
async function settledJobs(n: number) {
  for (let i = 0; i < 200; i += 1) {
    const { rows } = await ctx.db.pool.query('SELECT cause, status FROM settlement_jobs WHERE meeting_id = $1 AND race_number = $2 ORDER BY job_id', [M, n]);
    if (rows.length && rows.every((r) => r.status === 'done')) return rows.map((r) => r.cause);
    await sleep(25);
  }
  throw new Error(`the jobs of race ${n} were not settled`);
}

test('without a token 401, without scope catalog 403, on every new route', async () => {
  const routes: Array<['GET' | 'POST' | 'PUT', string, unknown?]> = [
    ['POST', `${race(1)}/result`, { placings: [[1]] }], ['GET', `${race(1)}/result`],
    ['PUT', '/catalog/place-terms/VIC', { terms: [{ min_starters: 8, places: 3 }] }], ['GET', '/catalog/place-terms'],
  ];
  for (const [method, url, body] of routes) {
    const anonymous = await call(method, url, {}, body);
    assert.deepEqual([anonymous.statusCode, anonymous.json().code], [401, 'invalid_token'], `${method} ${url}`);
    const wrong = await call(method, url, uploader, body);
    assert.deepEqual([wrong.statusCode, wrong.json().code], [403, 'insufficient_scope'], `${method} ${url}`);
  }
  assert.equal((await ctx.db.pool.query('SELECT 1 FROM race_results')).rows.length, 0);
});

test('an interim result is 200 and settles nothing; a final one is 202 and is settled in the background; GET shows the latest', async () => {
  assert.deepEqual([(await call('GET', `${race(1)}/result`, admin)).statusCode, (await call('GET', `${race(1)}/result`, admin)).json().code], [404, 'not_found']);
  const interim = await call('POST', `${race(1)}/result`, admin, { placings: [[2], [1]], interim: true });
  assert.equal(interim.statusCode, 200, interim.body);
  assert.deepEqual(interim.json(), {
    meeting_id: M, race_number: 1, status: 'interim', previous_status: 'closed', version: 1, amended: false, changed: true, placings: [[2], [1]], dividends: {}, settlement: null,
  });
  assert.equal((await ctx.db.pool.query('SELECT 1 FROM settlement_jobs')).rows.length, 0);

  const final = await call('POST', `${race(1)}/result`, admin, { placings: [[2], [1, 3]], dividends: { exacta: [{ runners: [2, 1], dividend: 12.5 }, { runners: [2, 3], dividend: 14 }] } });
  assert.equal(final.statusCode, 202, final.body);
  assert.deepEqual([final.json().status, final.json().previous_status, final.json().version, final.json().settlement], ['final', 'interim', 2, null]);
  assert.deepEqual(final.json().dividends, { exacta: [{ runners: [2, 1], dividend: '12.5' }, { runners: [2, 3], dividend: '14' }] });
  assert.deepEqual(await settledJobs(1), ['result']);

  const shown = await call('GET', `${race(1)}/result`, admin);
  assert.equal(shown.statusCode, 200);
  assert.deepEqual({ ...shown.json<Record<string, unknown>>(), recorded_at: undefined }, {
    meeting_id: M, race_number: 1, version: 2, final: true, placings: [[2], [1, 3]], recorded_at: undefined,
    dividends: { exacta: [{ runners: [2, 1], dividend: '12.5' }, { runners: [2, 3], dividend: '14' }] },
  });
  // The same result again (its answer lost, the request retried; a dead heat written in another
  // order) records nothing and settles nothing: it is no amendment.
  const again = await call('POST', `${race(1)}/result`, admin, { placings: [[2], [3, 1]], dividends: { exacta: [{ runners: [2, 1], dividend: 12.5 }, { runners: [2, 3], dividend: 14 }] } });
  assert.equal(again.statusCode, 200, again.body);
  assert.deepEqual([again.json().version, again.json().amended, again.json().changed, again.json().settlement], [2, false, false, null]);
  assert.equal((await ctx.db.pool.query('SELECT 1 FROM race_results WHERE meeting_id = $1 AND race_number = 1', [M])).rows.length, 2);
  assert.deepEqual(await settledJobs(1), ['result']);
  const amended = await call('POST', `${race(1)}/result`, admin, { placings: [[1], [2]] });
  assert.deepEqual([amended.statusCode, amended.json().amended, amended.json().changed, amended.json().version], [202, true, true, 3]);
  assert.deepEqual(await settledJobs(1), ['result', 'amendment']);
});

test('result refusals are 4xx problems and record nothing', async () => {
  const cases: Array<[string, string, unknown, number, string, RegExp?]> = [
    ['unknown race', `${race(42)}/result`, { placings: [[1]] }, 404, 'race_not_found'],
    ['open race', `${race(3)}/result`, { placings: [[1]] }, 409, 'race_status_conflict', /race is open and cannot become final .*close it first/],
    ['scratched runner placed', `${race(2)}/result`, { placings: [[4], [1]] }, 400, 'validation_failed', /runner 4 is scratched and cannot be placed/],
    ['unknown runner', `${race(2)}/result`, { placings: [[9]] }, 400, 'validation_failed', /runner 9 is not in the race/],
    ['runner placed twice', `${race(2)}/result`, { placings: [[1], [1]] }, 400, 'validation_failed', /placed twice/],
    ['interim on final', `${race(1)}/result`, { placings: [[1]], interim: true }, 409, 'race_status_conflict', /is final: an interim result can no longer be given/],
    ['dividend with 3 decimals', `${race(2)}/result`, { placings: [[1]], dividends: { exacta: 3.456 } }, 400, 'validation_failed', /at most two decimals/],
    ['dividend below 1', `${race(2)}/result`, { placings: [[1]], dividends: { exacta: 0.5 } }, 400, 'validation_failed', /at least 1/],
    ['unknown product', `${race(2)}/result`, { placings: [[1]], dividends: { pick6: 3 } }, 400, 'validation_failed', /body field "dividends.pick6" is not a known field/],
    ['a misspelt field', `${race(2)}/result`, { placings: [[1]], interm: true }, 400, 'validation_failed', /body field "interm" is not a known field/],
    ['placings as text', `${race(2)}/result`, { placings: '[[1]]' }, 400, 'validation_failed'],
    ['empty placings', `${race(2)}/result`, { placings: [] }, 400, 'validation_failed'],
    ['interim as text', `${race(2)}/result`, { placings: [[1]], interim: 'true' }, 400, 'validation_failed'],
    ['an exacta dividend, one runner placed', `${race(2)}/result`, { placings: [[1]], dividends: { exacta: 12 } }, 400, 'validation_failed',
      /dividends\.exacta needs 2 placed runners; the placings fill 1/],
    ['short_field as text', `${race(2)}/result`, { placings: [[1]], short_field: 'yes' }, 400, 'validation_failed'],
    ['no placings', `${race(2)}/result`, { dividends: {} }, 400, 'validation_failed'],
  ];
  for (const [name, url, body, status, code, detail] of cases) {
    const res = await call('POST', url, admin, body);
    assert.deepEqual([res.statusCode, res.json().code], [status, code], `${name}: ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    if (detail) assert.match(res.json().detail, detail, name);
  }
  const broken = await ctx.app.inject({ method: 'POST', url: `${race(2)}/result`, headers: { ...admin, 'content-type': 'application/json' }, payload: '{"placings": [[1]' });
  assert.deepEqual([broken.statusCode, broken.json().code], [400, 'malformed_json']);
  assert.deepEqual((await call('GET', `${race(42)}/result`, admin)).json().code, 'race_not_found');
  assert.deepEqual((await ctx.db.pool.query('SELECT version FROM race_results WHERE meeting_id = $1 AND race_number <> 1', [M])).rows, []);
});

test('place terms: set per jurisdiction or *, listed * first; every rule checked', async () => {
  const set = await call('PUT', '/catalog/place-terms/nsw', admin, { terms: [{ min_starters: 5, places: 2 }, { min_starters: 8, places: 3 }] });
  assert.equal(set.statusCode, 200, set.body);
  assert.deepEqual([set.json().jurisdiction, set.json().terms], ['NSW', [{ min_starters: 8, places: 3 }, { min_starters: 5, places: 2 }]]);
  const star = await call('PUT', '/catalog/place-terms/*', admin, { terms: [{ min_starters: 8, places: 3 }, { min_starters: 5, places: 2 }, { min_starters: 1, places: 1 }] });
  assert.deepEqual([star.statusCode, star.json().jurisdiction], [200, '*']);
  const listed = await call('GET', '/catalog/place-terms', admin);
  assert.deepEqual(listed.json().place_terms.map((t: { jurisdiction: string; terms: unknown[] }) => [t.jurisdiction, t.terms.length]), [['*', 3], ['NSW', 2]]);
  // Race 2 of the VIC meeting has 3 starters: VIC has no terms, so '*' pays 1 place.
  assert.equal((await ctx.services.catalogue.raceFacts([{ meetingId: M, raceNumber: 2 }])).get(`${M}:2`)!.placesPaid, 1);

  const bad: Array<[string, string, unknown, RegExp]> = [
    ['places 0', 'VIC', { terms: [{ min_starters: 8, places: 0 }] }, /terms\[0\]\.places/],
    ['places above min_starters', 'VIC', { terms: [{ min_starters: 2, places: 3 }] }, /terms\[0\]\.places must be an integer from 1 to its min_starters \(2\)/],
    ['min_starters twice', 'VIC', { terms: [{ min_starters: 8, places: 3 }, { min_starters: 8, places: 2 }] }, /min_starters 8 is given twice/],
    ['min_starters 0', 'VIC', { terms: [{ min_starters: 0, places: 1 }] }, /min_starters/],
    ['no terms', 'VIC', { terms: [] }, /terms/],
    ['a fraction', 'VIC', { terms: [{ min_starters: 8, places: 2.5 }] }, /places/],
    ['an unknown field', 'VIC', { terms: [{ min_starters: 8, places: 3, each_way: true }] }, /body field "terms\[0\].each_way" is not a known field/],
    ['a bad jurisdiction', 'V%20I%20C', { terms: [{ min_starters: 8, places: 3 }] }, /path parameter "jurisdiction"/],
  ];
  for (const [name, jurisdiction, body, detail] of bad) {
    const res = await call('PUT', `/catalog/place-terms/${jurisdiction}`, admin, body);
    assert.deepEqual([res.statusCode, res.json().code], [400, 'validation_failed'], `${name}: ${res.body}`);
    assert.match(res.json().detail, detail, name);
  }
  assert.equal((await ctx.db.pool.query("SELECT 1 FROM place_terms WHERE jurisdiction = 'VIC'")).rows.length, 0);
});

test('the OpenAPI document lists the result and place-terms routes', async () => {
  const doc = (await ctx.app.inject({ url: '/openapi.json' })).json();
  const result = doc.paths['/catalog/meetings/{meeting_id}/races/{race_number}/result'];
  assert.ok(result.post.responses['202'] && result.post.responses['200'] && result.post.responses['409']);
  assert.ok(result.get.responses['404']);
  assert.ok(doc.paths['/catalog/place-terms/{jurisdiction}'].put.requestBody);
  assert.ok(doc.paths['/catalog/place-terms'].get);
});

test('an import that scratches a runner of a resulted race is a 409 problem and writes nothing', async () => {
  assert.equal((await ctx.services.catalogue.getRace(M, 1))!.status, 'final');
  const file = { meeting_id: M, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: '2026-11-21T11:10:00+11:00', runners: [{ number: 2, name: 'R2', scratched: true }, { number: 3, name: 'R3', win: 9 }] }] };
  const res = await call('POST', '/catalog/meetings', admin, file);
  assert.deepEqual([res.statusCode, res.json().code], [409, 'race_not_trading'], res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.match(res.json().detail, /scratches runners or changes deductions in race 1 of meeting 900101 \(final\); a race's runners change only until it is resulted/);
  const runners = (await ctx.services.catalogue.getRace(M, 1))!.runners;
  assert.deepEqual(runners.filter((r) => r.number === 2 || r.number === 3).map((r) => [r.scratched, r.win]), [[false, '4.00'], [false, '5.00']]);
});

test('a result the race\'s status refuses is a 409 race_status_conflict with current_status, requested_status and allowed, as a status move', async () => {
  const open = await call('POST', `${race(3)}/result`, admin, { placings: [[1]] });
  assert.equal(open.statusCode, 409, open.body);
  assert.deepEqual([open.json().current_status, open.json().requested_status, open.json().allowed], ['open', 'final', ['suspended', 'closed', 'abandoned']]);
  const interim = await call('POST', `${race(1)}/result`, admin, { placings: [[1]], interim: true });
  assert.equal(interim.statusCode, 409, interim.body);
  assert.deepEqual([interim.json().current_status, interim.json().requested_status, interim.json().allowed], ['final', 'interim', []]);
  assert.equal((await ctx.services.catalogue.getRace(M, 3))!.status, 'open');
});

test('a quaddie or daily double dividend is taken only on its pool\'s last race: elsewhere a 400 naming the pool and that race, nothing recorded', async () => {
  const P = 900102;
  await ctx.services.catalogue.importCatalog({
    meeting_id: P, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    pools: [{ product: 'quaddie', races: [1, 2, 3, 4] }, { product: 'dailydouble', races: [2, 3] }],
    races: [1, 2, 3, 4].map((n) => ({ race_number: n, start_time: `2026-11-21T1${n}:10:00+11:00`, products: ['win'],
      runners: [1, 2, 3].map((r) => ({ number: r, name: `R${r}`, win: 2 + r })) })),
  });
  for (const n of [1, 2, 3, 4]) await ctx.services.catalogue.setStatus(P, n, 'closed');
  const result = (n: number, dividends: unknown, interim = false) =>
    call('POST', `/catalog/meetings/${P}/races/${n}/result`, admin, { placings: [[1], [2]], dividends, ...(interim && { interim }) });
  const cases: Array<[string, number, unknown, boolean, RegExp]> = [
    ['a quaddie on its second leg', 2, { quaddie: 850.4 }, false,
      /race 2 of meeting 900102: dividends\.quaddie: race 2 is not the last race of a quaddie of the meeting: the quaddie of races 1, 2, 3, 4 ends on race 4; declare its dividends there/],
    ['an interim result too', 3, { quaddie: [{ runners: [1, 1, 1, 1], dividend: 850.4 }] }, true, /dividends\.quaddie: race 3 is not the last race of a quaddie .*ends on race 4/],
    ['a daily double on the quaddie\'s last race', 4, { dailydouble: 45.6 }, false, /dividends\.dailydouble: race 4 is not the last race of a dailydouble of the meeting: the dailydouble of races 2, 3 ends on race 3/],
  ];
  for (const [name, n, dividends, interim, detail] of cases) {
    const res = await result(n, dividends, interim);
    assert.deepEqual([res.statusCode, res.json().code], [400, 'validation_failed'], `${name}: ${res.body}`);
    assert.match(res.json().detail, detail, name);
    assert.deepEqual(res.json().errors.map((e: { field: string }) => e.field), ['dividends'], name);
  }
  // A meeting without pools has no race to take one.
  const none = await call('POST', `${race(2)}/result`, admin, { placings: [[1], [2]], dividends: { dailydouble: 12 } });
  assert.deepEqual([none.statusCode, none.json().code], [400, 'validation_failed'], none.body);
  assert.match(none.json().detail, /dividends\.dailydouble: meeting 900101 has no dailydouble/);
  assert.deepEqual((await ctx.db.pool.query('SELECT race_number FROM race_results WHERE meeting_id = $1 OR (meeting_id = $2 AND race_number = 2)', [P, M])).rows, [], 'nothing recorded');
  assert.deepEqual((await ctx.services.catalogue.getRace(P, 2))!.status, 'closed');
  // On their last races they are taken.
  assert.equal((await result(3, { dailydouble: 45.6 })).statusCode, 202);
  assert.equal((await result(4, { quaddie: [{ runners: [1, 1, 1, 1], dividend: 850.4 }] })).statusCode, 202);
});
