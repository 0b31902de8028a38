// The catalogue's admin API over app.inject(): scope `catalog`, problem+json errors, OpenAPI.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';

let ctx: TestContext;
let admin: Record<string, string>;
let uploader: Record<string, string>;
const RACE = '/catalog/meetings/900001/races/5';

const day = {
  meeting_id: 900001, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
  pools: [{ product: 'dailydouble', races: [5, 6] }],
  races: [5, 6].map((n) => ({ race_number: n, start_time: `2026-11-21T1${n}:10:00+11:00`, products: ['win', 'place', 'exacta'],
    runners: [{ number: 1, name: 'Fast Lass', win: 3.5, place: 1.6 }, { number: 2, name: 'Deep Blue', scratched: true }] })),
};

function call(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown) {
  return ctx.app.inject({ method, url, headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { payload: JSON.stringify(body) }) });
}

before(async () => {
  ctx = await createTestApp();
  admin = (await seedClient(ctx, { scopes: ['catalog'] })).auth;
  uploader = (await seedClient(ctx, { scopes: ['upload'] })).auth;
});
after(() => ctx.close());

test('without a token 401, without scope catalog 403, on every route', async () => {
  const routes: Array<['GET' | 'POST' | 'PUT', string, unknown?]> = [
    ['POST', '/catalog/meetings', day], ['GET', RACE], ['PUT', `${RACE}/runners/1/price`, { win: 3 }],
    ['POST', `${RACE}/runners/1/scratch`, {}], ['PUT', `${RACE}/status`, { status: 'closed' }],
  ];
  for (const [method, url, body] of routes) {
    const anonymous = await call(method, url, {}, body);
    assert.equal(anonymous.statusCode, 401, `${method} ${url}`);
    assert.equal(anonymous.json().code, 'invalid_token');
    const wrong = await call(method, url, uploader, body);
    assert.equal(wrong.statusCode, 403, `${method} ${url}`);
    assert.match(String(wrong.headers['content-type']), /^application\/problem\+json/);
  }
  const { rows } = await ctx.db.pool.query('SELECT 1 FROM meetings');
  assert.equal(rows.length, 0);
});

test('import, read, price, scratch and status through the API', async () => {
  const imported = await call('POST', '/catalog/meetings', admin, { meetings: [day] });
  assert.equal(imported.statusCode, 200, imported.body);
  assert.deepEqual(imported.json(), { imported: 1, races: 2, runners: 4, price_changes: 2, pools: 1 });
  const race = await call('GET', RACE, admin);
  assert.equal(race.statusCode, 200);
  const view = race.json();
  assert.match(view.event_id, /^[0-9a-f-]{36}$/);
  assert.deepEqual([view.meeting_name, view.status, view.products, view.runners[0].win], ['Flemington', 'open', ['win', 'place', 'exacta'], '3.50']);

  const priced = await call('PUT', `${RACE}/runners/1/price`, admin, { win: 3.4, place: '1.55' });
  assert.equal(priced.statusCode, 200, priced.body);
  assert.deepEqual([priced.json().runner.win, priced.json().runner.place, priced.json().changed], ['3.40', '1.55', true]);
  const scratched = await call('POST', `${RACE}/runners/1/scratch`, admin, { win_deduction: 12.5 });
  assert.equal(scratched.statusCode, 200, scratched.body);
  assert.equal(scratched.json().runner.win_deduction, '12.50');
  const bare = await ctx.app.inject({ method: 'POST', url: '/catalog/meetings/900001/races/6/runners/1/scratch', headers: admin });
  assert.equal(bare.statusCode, 200, bare.body);

  const closed = await call('PUT', `${RACE}/status`, admin, { status: 'closed' });
  assert.deepEqual([closed.statusCode, closed.json().status, closed.json().previous_status], [200, 'closed', 'open']);
  const illegal = await call('PUT', `${RACE}/status`, admin, { status: 'open' });
  assert.equal(illegal.statusCode, 409);
  assert.match(String(illegal.headers['content-type']), /^application\/problem\+json/);
  assert.deepEqual([illegal.json().code, illegal.json().current_status, illegal.json().requested_status], ['race_status_conflict', 'closed', 'open']);
  assert.match(illegal.json().detail, /race is closed and cannot become open/);
});

test('bad input is a 4xx problem, never a 500, and writes nothing', async () => {
  const cases: Array<[string, 'GET' | 'POST' | 'PUT', string, unknown, number, string]> = [
    ['bad import', 'POST', '/catalog/meetings', { ...day, meeting_id: 900077, code: 'Z', races: [{ race_number: 0 }] }, 400, 'validation_failed'],
    ['import not an object', 'POST', '/catalog/meetings', 'x', 400, 'validation_failed'],
    ['price with 3 decimals', 'PUT', `/catalog/meetings/900001/races/6/runners/2/price`, { win: 3.456 }, 400, 'validation_failed'],
    ['price below 1.01', 'PUT', `/catalog/meetings/900001/races/6/runners/2/price`, { win: 1 }, 400, 'validation_failed'],
    ['misspelt price field', 'PUT', `/catalog/meetings/900001/races/6/runners/2/price`, { win: 3, plase: 1.5 }, 400, 'validation_failed'],
    ['empty price body', 'PUT', `/catalog/meetings/900001/races/6/runners/2/price`, {}, 400, 'validation_failed'],
    ['scratched runner', 'PUT', `/catalog/meetings/900001/races/6/runners/2/price`, { win: 3 }, 409, 'runner_scratched'],
    ['unknown runner', 'PUT', `/catalog/meetings/900001/races/6/runners/9/price`, { win: 3 }, 404, 'runner_not_found'],
    ['unknown race', 'GET', '/catalog/meetings/900001/races/42', undefined, 404, 'race_not_found'],
    ['race number 0', 'GET', '/catalog/meetings/900001/races/0', undefined, 400, 'validation_failed'],
    ['meeting id text', 'GET', '/catalog/meetings/abc/races/1', undefined, 400, 'validation_failed'],
    ['status final', 'PUT', `${RACE}/status`, { status: 'final' }, 400, 'bad_request'],
    ['deduction 100', 'POST', `/catalog/meetings/900001/races/6/runners/2/scratch`, { win_deduction: 100 }, 400, 'validation_failed'],
    ['broken JSON', 'PUT', `${RACE}/status`, undefined, 400, 'malformed_json'],
  ];
  for (const [name, method, url, body, status, code] of cases) {
    const res = name === 'broken JSON'
      ? await ctx.app.inject({ method, url, headers: { ...admin, 'content-type': 'application/json' }, payload: '{' })
      : await call(method, url, admin, body);
    assert.equal(res.statusCode, status, `${name}: ${res.body}`);
    assert.equal(res.json().code, code, name);
  }
  const bad = await call('POST', '/catalog/meetings', admin, { ...day, meeting_id: 900077, code: 'Z', races: [{ race_number: 0 }] });
  assert.deepEqual(bad.json().errors.map((e: { field: string }) => e.field), ['code', 'races/0/race_number', 'races/0/start_time', 'pools/0/races']);
  const { rows } = await ctx.db.pool.query('SELECT 1 FROM meetings WHERE meeting_id = 900077');
  assert.equal(rows.length, 0);
});

test('the OpenAPI document lists the catalogue routes with their problem answers', async () => {
  const doc = (await ctx.app.inject({ url: '/openapi.json' })).json();
  const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/catalog/'));
  assert.deepEqual(paths.sort(), [
    '/catalog/meetings', '/catalog/meetings/{meeting_id}/races/{race_number}',
    '/catalog/meetings/{meeting_id}/races/{race_number}/result',
    '/catalog/meetings/{meeting_id}/races/{race_number}/runners/{runner}/price',
    '/catalog/meetings/{meeting_id}/races/{race_number}/runners/{runner}/scratch',
    '/catalog/meetings/{meeting_id}/races/{race_number}/status',
    '/catalog/place-terms', '/catalog/place-terms/{jurisdiction}',
  ]);
  assert.ok(doc.paths['/catalog/meetings/{meeting_id}/races/{race_number}/status'].put.responses['409']);
});

test('the import takes what its OpenAPI schema says: digit-string ids, decimal-string prices and deductions', async () => {
  const doc = (await ctx.app.inject({ url: '/openapi.json' })).json();
  const text = JSON.stringify(doc.paths['/catalog/meetings'].post.requestBody);
  for (const shown of ['"pattern":"^[0-9]+$"', '"pattern":"^[0-9]+(\\\\.[0-9]+)?$"']) assert.ok(text.includes(shown), shown);
  const res = await call('POST', '/catalog/meetings', admin, {
    meeting_id: '900078', date: '2026-11-21', venue: 'Sandown', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: '2', start_time: '2026-11-21T14:10:00+11:00', runners: [
      { number: 1, name: 'Strings', win: '3.40', place: '1.5' }, { number: 2, name: 'Late', scratched: true, win_deduction: '12.5' }] }],
  });
  assert.equal(res.statusCode, 200, res.body);
  const race = (await call('GET', '/catalog/meetings/900078/races/2', admin)).json();
  assert.deepEqual(race.runners.map((r: { win: string | null; place: string | null; win_deduction: string | null }) => [r.win, r.place, r.win_deduction]),
    [['3.40', '1.50', null], [null, null, '12.50']]);
});

test('an import may not change a price of a race past suspended: 409 naming the race and its status, nothing written; the same prices pass', async () => {
  const race = (n: number, runners: unknown[]) => ({ race_number: n, start_time: `2026-11-21T1${n}:10:00+11:00`, products: ['win', 'place'], runners });
  const priced = (win: number | null, place?: number) => [{ number: 1, name: 'Fast Lass', win, ...(place !== undefined && { place }) }, { number: 2, name: 'Deep Blue', win: 5 }];
  const file = (races: unknown[]) => ({ meeting_id: 900010, date: '2026-11-21', venue: 'Flemington', jurisdiction: 'VIC', code: 'T', races });
  assert.equal((await call('POST', '/catalog/meetings', admin, file([1, 2, 3].map((n) => race(n, priced(3.5, 1.6)))))).statusCode, 200);
  const url = (n: number) => `/catalog/meetings/900010/races/${n}`;
  for (const [n, status] of [[1, 'closed'], [2, 'suspended'], [3, 'abandoned']] as const) {
    assert.equal((await call('PUT', `${url(n)}/status`, admin, { status })).statusCode, 200);
  }
  const history = async () => (await ctx.db.pool.query('SELECT count(*)::int AS n FROM runner_price_history WHERE meeting_id = 900010')).rows[0].n;
  const before = await history();

  // Replayed whole, as a daily feed is: the same prices (3.5 is "3.50") change nothing and pass.
  const replay = await call('POST', '/catalog/meetings', admin, file([1, 2, 3].map((n) => race(n, priced(3.5, 1.6)))));
  assert.deepEqual([replay.statusCode, replay.json().price_changes], [200, 0], replay.body);

  // A new win price on the closed race, beside a new price on the suspended one: all refused.
  const refused = await call('POST', '/catalog/meetings', admin, file([race(1, priced(3.6)), race(2, priced(4))]));
  assert.deepEqual([refused.statusCode, refused.json().code], [409, 'race_not_trading'], refused.body);
  assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
  assert.match(refused.json().detail, /^nothing imported: the file changes the prices of runner 1 in race 1 of meeting 900010 \(closed\); .*prices only until it closes/);
  assert.deepEqual(refused.json().races, [{ meeting_id: 900010, race_number: 1, status: 'closed' }]);
  // Clearing a price, or pricing a runner new to the race, is a change too.
  const cleared = await call('POST', '/catalog/meetings', admin, file([race(3, [{ number: 1, name: 'Fast Lass', place: null }, { number: 3, name: 'Late', win: 9 }])]));
  assert.deepEqual([cleared.statusCode, cleared.json().code], [409, 'race_not_trading'], cleared.body);
  assert.match(cleared.json().detail, /changes the prices of runners 1, 3 in race 3 of meeting 900010 \(abandoned\)/);
  const runnersOf = async (n: number) => (await call('GET', url(n), admin)).json().runners.map((r: { number: number; win: string; place: string }) => [r.number, r.win, r.place]);
  assert.deepEqual([await runnersOf(1), await runnersOf(2), await runnersOf(3)], Array(3).fill([[1, '3.50', '1.60'], [2, '5.00', null]]), 'nothing written');
  assert.equal(await history(), before);

  // The price route refuses the closed race as well; suspended ⇄ open still takes new prices.
  const route = await call('PUT', `${url(1)}/runners/1/price`, admin, { win: 3.6 });
  assert.deepEqual([route.statusCode, route.json().code, route.json().status], [409, 'race_not_trading', 'closed'], route.body);
  assert.match(route.json().detail, /race 1 of meeting 900010 is closed: prices change only while it is open or suspended/);
  const suspended = await call('POST', '/catalog/meetings', admin, file([race(2, priced(4))]));
  assert.deepEqual([suspended.statusCode, suspended.json().price_changes], [200, 1], suspended.body);
  assert.equal((await call('PUT', `${url(2)}/status`, admin, { status: 'open' })).statusCode, 200);
  assert.equal((await call('POST', '/catalog/meetings', admin, file([race(2, priced(4.2))]))).json().price_changes, 1);
});
