// The reports over real data uploaded through the real upload endpoint (docs/reports.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';

type Seeded = Awaited<ReturnType<typeof seedClient>>;
let ctx: TestContext;
let a: Seeded; // operator A: agencies TAB, SKY
let b: Seeded; // operator B
let c: Seeded; // operator C: multi-leg cases
let vic: Seeded; // authority, jurisdiction VIC
let nswQld: Seeded; // authority, jurisdictions NSW and QLD

async function upload(as: Seeded, at: string, meetingId: number, raceNumber: number, bets: Record<string, unknown>[]) {
  ctx.clock.set(new Date(at));
  const { access_token } = await ctx.tokens.grant(as.client.client_id, as.client.client_secret);
  const res = await ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify({ meeting_id: meetingId, race_number: raceNumber, bets }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
}

const bet = (id: string, over: Record<string, unknown>) =>
  buildBet({ id, source: 'TAB', status: 'Paid', payout: 0, net_result: undefined, price: 2, bonus: false, ...over });

async function report(as: Seeded, query: string, headers: Record<string, string> = {}) {
  const { access_token } = await ctx.tokens.grant(as.client.client_id, as.client.client_secret);
  return ctx.app.inject({ url: `/reports/${query}`, headers: { authorization: `Bearer ${access_token}`, ...headers } });
}

async function rows(as: Seeded, query: string) {
  const res = await report(as, query);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().rows as Record<string, unknown>[];
}

const ON_TIME = '2024-05-01T18:00:00+10:00';

before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  a = await seedClient(ctx, { agencies: ['TAB', 'SKY'] });
  b = await seedClient(ctx, { agencies: ['XB'] });
  c = await seedClient(ctx, { agencies: ['TAB'] });
  vic = await seedClient(ctx, { scopes: ['report'], jurisdictions: ['VIC'] });
  nswQld = await seedClient(ctx, { scopes: ['report'], jurisdictions: ['NSW', 'QLD'] });
  await ctx.services.catalogue.importMeetings([
    { meeting_id: 100, date: '2024-05-01', venue: 'Randwick', jurisdiction: 'NSW', code: 'T', races: [] },
    { meeting_id: 200, date: '2024-05-01', venue: 'Flemington', jurisdiction: 'VIC', code: 'T', races: [] },
    { meeting_id: 300, date: '2024-05-02', venue: 'Doomben', jurisdiction: 'QLD', code: 'T', races: [] },
  ]);
  const multi = { type: 'multi', amount: 6, price: 1.55, payout: 14.415, user_state: 'NSW' };
  await upload(a, ON_TIME, 100, 1, [
    bet('a1', { amount: 10, payout: 35, user_state: 'NSW', medium: 'internet' }),
    bet('a2', { source: 'SKY', amount: 20, user_state: 'VIC', medium: 'phone', bonus: true }),
    bet('a3', { amount: 5, status: 'Cancelled' }),
    bet('a4', { amount: 7, payout: 7, status: 'FullRefund' }),
    bet('m1', { ...multi, leg: 1 }),
  ]);
  await upload(a, ON_TIME, 200, 2, [
    bet('m1', { ...multi, leg: 2, runner_number: 7 }),
    bet('a5', { type: 'trifecta', runner_number: undefined, exotics_selection: '1/2/3', amount: 24, status: 'Unresulted', user_state: 'NSW', back_indicator: true, bet_back_amount: 10 }),
    bet('a6', { amount: 3.33, payout: 1.5, status: 'PartialRefund', user_state: 'NSW' }),
  ]);
  await upload(b, ON_TIME, 200, 2, [bet('b1', { source: 'XB', amount: 50, user_state: 'NSW' })]);
  await upload(b, ON_TIME, 100, 1, [bet('b2', { source: 'XB', amount: 40, user_state: 'QLD' })]);
  // Late (spec 8; no race times known, so the deadline is 24 h after the end of the racing day):
  // a7 first reported after the deadline of 2024-05-02; a1 corrected after that of 2024-05-01.
  await upload(a, '2024-05-05T10:00:00+10:00', 300, 1, [bet('a7', { amount: 100, status: 'Pending', user_state: 'QLD', time: '2024-05-02T13:00:00+10:00' })]);
  await upload(a, '2024-05-04T12:00:00+10:00', 100, 1, [bet('a1', { amount: 10, payout: 35, user_state: 'NSW', medium: 'internet', user_name: 'Corrected' })]);
});
after(() => ctx.close());

const totals = (r: Record<string, unknown>) => [r.bets, r.void_bets, r.turnover, r.bonus_turnover, r.bet_back_turnover, r.payout, r.net_result];

test('ungrouped: one row; multi counted once; Cancelled and FullRefund count zero; money rounded once to cents', async () => {
  const [row, ...more] = await rows(a, 'turnover?from=2024-05-01&to=2024-05-02');
  assert.equal(more.length, 0);
  // a1 10 + a2 20 + m1 6 + a5 24 + a6 3.33 + a7 100; payout 35 + 14.415 + 1.5; net 112.415 → 112.42
  assert.deepEqual(totals(row!), [8, 2, '163.33', '20.00', '10.00', '50.92', '112.42']);
});

test('grouped by meeting and race: a multi is attributed to the race of its lowest leg', async () => {
  const got = await rows(a, 'turnover?from=2024-05-01&to=2024-05-01&group_by=meeting_id,race_number');
  assert.deepEqual(got.map((r) => [r.meeting_id, r.race_number, ...totals(r)]), [
    [100, 1, 5, 2, '36.00', '20.00', '0.00', '49.42', '-13.42'],
    [200, 2, 2, 0, '27.33', '0.00', '10.00', '1.50', '25.83'],
  ]);
  const meeting = await rows(a, 'turnover?from=2024-05-01&to=2024-05-01&meeting_id=200');
  assert.deepEqual(totals(meeting[0]!), [2, 0, '27.33', '0.00', '10.00', '1.50', '25.83']);
});

test('every group key; date is the racing day; keys come first in the order asked', async () => {
  const got = await rows(a, 'turnover?from=2024-05-01&to=2024-05-02&group_by=date,type,source,bonus');
  assert.deepEqual(got.map((r) => Object.keys(r).slice(0, 4)), Array(got.length).fill(['date', 'type', 'source', 'bonus']));
  assert.deepEqual(got.map((r) => [r.date, r.type, r.source, r.bonus, r.turnover]), [
    ['2024-05-01', 'multi', 'TAB', false, '6.00'],
    ['2024-05-01', 'trifecta', 'TAB', false, '24.00'],
    ['2024-05-01', 'win', 'SKY', true, '20.00'],
    ['2024-05-01', 'win', 'TAB', false, '13.33'],
    ['2024-05-02', 'win', 'TAB', false, '100.00'],
  ]);
  const media = await rows(a, 'turnover?from=2024-05-01&to=2024-05-02&group_by=medium,user_state,info_type,tenant_id');
  assert.deepEqual(media.find((r) => r.medium === 'phone'), {
    medium: 'phone', user_state: 'VIC', info_type: 'fixed', tenant_id: a.tenant.tenant_id, currency: 'AUD',
    bets: 1, void_bets: 0, turnover: '20.00', bonus_turnover: '20.00', bet_back_turnover: '0.00', payout: '0.00', net_result: '20.00',
  });
});

test('scope upload sees its own tenant only', async () => {
  const got = await rows(b, 'turnover?from=2024-05-01&to=2024-05-02&group_by=tenant_id');
  assert.deepEqual(got.map((r) => [r.tenant_id, r.bets, r.turnover]), [[b.tenant.tenant_id, 2, '90.00']]);
  // No bets, no rows: a row states its currency, and there is none to state.
  assert.deepEqual(await rows(b, 'turnover?from=2024-05-02&to=2024-05-02'), []);
});

test('scope report: every tenant, bets on meetings in its jurisdictions or by customers in them', async () => {
  // VIC: a5, a6, b1 on Flemington (VIC), a2 by a VIC customer at Randwick, and the multi m1 whose
  // second leg is at Flemington: a VIC authority sees it, on that leg (its first is NSW's).
  const got = await rows(vic, 'turnover?from=2024-05-01&to=2024-05-02&group_by=tenant_id,meeting_id,race_number');
  assert.deepEqual(got.map((r) => [r.tenant_id === a.tenant.tenant_id ? 'A' : 'B', r.meeting_id, r.race_number, r.bets, r.turnover]).sort(), [
    ['A', 100, 1, 1, '20.00'], ['A', 200, 2, 3, '33.33'], ['B', 200, 2, 1, '50.00'],
  ]);
  const multi = await rows(vic, 'turnover?from=2024-05-01&to=2024-05-01&group_by=type');
  assert.deepEqual(multi.filter((r) => r.type === 'multi').map((r) => [r.bets, r.turnover, r.payout]), [[1, '6.00', '14.42']]);
  const total = await rows(nswQld, 'turnover?from=2024-05-01&to=2024-05-02');
  // NSW/QLD: all of meeting 100 (a1..a4, m1, b2), meeting 300 (a7), and NSW customers at Flemington (a5, a6, b1).
  assert.deepEqual(totals(total[0]!), [10, 2, '253.33', '20.00', '10.00', '50.92', '202.42']);
});

test('scope report without jurisdictions (an operator\'s analyst): its own tenant, not every tenant', async () => {
  const analyst = await seedClient(ctx, { scopes: ['report'], tenantId: b.tenant.tenant_id });
  const got = await rows(analyst, 'turnover?from=2024-05-01&to=2024-05-02&group_by=tenant_id');
  assert.deepEqual(got.map((r) => [r.tenant_id, r.bets, r.turnover]), [[b.tenant.tenant_id, 2, '90.00']]);
  const both = await seedClient(ctx, { scopes: ['upload', 'report'], tenantId: b.tenant.tenant_id, agencies: ['XB'] });
  assert.deepEqual(await rows(both, 'turnover?from=2024-05-01&to=2024-05-02'), await rows(b, 'turnover?from=2024-05-01&to=2024-05-02'));
});

test('a multi: once however many legs; money and status from the latest leg received; no leg 1: lowest leg', async () => {
  await upload(c, ON_TIME, 100, 1, [bet('mm', { type: 'multi', leg: 1, amount: 8, payout: 0, status: 'Unresulted' })]);
  await upload(c, '2024-05-01T19:00:00+10:00', 200, 2, [bet('mm', { type: 'multi', leg: 2, amount: 8, payout: 20, status: 'Paid' })]);
  await upload(c, ON_TIME, 200, 3, [bet('nl', { type: 'multi', leg: 2, amount: 4, status: 'Paid' }), bet('q1', { type: 'quaddie', runner_number: undefined, exotics_selection: '1/2/3/4', leg: 1, amount: 2 })]);
  await upload(c, ON_TIME, 200, 4, [bet('nl', { type: 'multi', leg: 3, amount: 4, status: 'Paid' }), bet('q1', { type: 'quaddie', runner_number: undefined, exotics_selection: '1/2/3/4', leg: 2, amount: 2 })]);
  const got = await rows(c, 'turnover?from=2024-05-01&to=2024-05-01&group_by=meeting_id,race_number');
  assert.deepEqual(got.map((r) => [r.meeting_id, r.race_number, r.bets, r.turnover, r.payout]), [
    [100, 1, 1, '8.00', '20.00'], [200, 3, 2, '6.00', '0.00'],
  ]);
  await upload(c, '2024-05-01T20:00:00+10:00', 200, 2, [bet('mm', { type: 'multi', leg: 2, amount: 8, payout: 0, status: 'Cancelled' })]);
  const cancelled = await rows(c, 'turnover?from=2024-05-01&to=2024-05-01&meeting_id=100');
  assert.deepEqual(totals(cancelled[0]!), [1, 1, '0.00', '0.00', '0.00', '0.00', '0.00']);
});

test('CSV for Accept: text/csv, with a header row and the group keys first', async () => {
  const res = await report(a, 'turnover?from=2024-05-01&to=2024-05-01&group_by=meeting_id', { accept: 'text/csv' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  assert.match(String(res.headers['content-disposition']), /turnover_2024-05-01_2024-05-01\.csv/);
  assert.equal(res.body, 'meeting_id,currency,bets,void_bets,turnover,bonus_turnover,bet_back_turnover,payout,net_result\r\n' +
    '100,AUD,5,2,36.00,20.00,0.00,49.42,-13.42\r\n200,AUD,2,0,27.33,0.00,10.00,1.50,25.83\r\n');
  const json = await report(a, 'turnover?from=2024-05-01&to=2024-05-01', { accept: 'text/csv;q=0.5, application/json' });
  assert.match(String(json.headers['content-type']), /^application\/json/);
});

test('late uploads: per client, racing day and race; first reported late vs corrected late', async () => {
  const got = await rows(a, 'late-uploads?from=2024-05-01&to=2024-05-02');
  assert.deepEqual(got.map((r) => [r.date, r.client_id, r.meeting_id, r.race_number, r.bets, r.late_bets, r.late_changes, r.deadline_at, r.last_late_at, r.max_delay_seconds]), [
    ['2024-05-01', a.client.client_id, 100, 1, 1, 0, 1, '2024-05-02T14:00:00.000Z', '2024-05-04T02:00:00.000Z', 36 * 3600],
    ['2024-05-02', a.client.client_id, 300, 1, 1, 1, 0, '2024-05-03T14:00:00.000Z', '2024-05-05T00:00:00.000Z', 34 * 3600],
  ]);
  assert.deepEqual(await rows(b, 'late-uploads?from=2024-05-01&to=2024-05-02'), []);
  assert.deepEqual(await rows(vic, 'late-uploads?from=2024-05-01&to=2024-05-02'), []);
  assert.equal((await rows(nswQld, 'late-uploads?from=2024-05-01&to=2024-05-02')).length, 2);
  assert.equal((await rows(a, 'late-uploads?from=2024-05-02&to=2024-05-02')).length, 1);
  assert.deepEqual((await rows(a, 'late-uploads?from=2024-05-01&to=2024-05-02&meeting_id=300')).map((r) => r.meeting_id), [300], 'meeting_id filters');
  assert.deepEqual(await rows(a, 'late-uploads?from=2024-05-01&to=2024-05-02&meeting_id=200'), []);
  const csv = await report(a, 'late-uploads?from=2024-05-01&to=2024-05-02', { accept: 'text/csv' });
  assert.equal(csv.body.split('\r\n')[0], 'date,tenant_id,tenant_name,client_id,meeting_id,race_number,bets,late_bets,late_changes,deadline_at,first_late_at,last_late_at,max_delay_seconds');
  assert.equal(csv.body.split('\r\n').length, 4);
});

test('bad parameters are 400 problem+json naming the parameter', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['turnover?to=2024-05-01', 'querystring/from', /required/],
    ['turnover?from=2024-02-30&to=2024-03-01', 'querystring/from', /YYYY-MM-DD, got "2024-02-30"/],
    ['turnover?from=2024-05-02&to=2024-05-01', 'querystring/to', /not be before from/],
    ['turnover?from=2024-01-01&to=2025-01-01', 'querystring/to', /367 days; at most 366/],
    ['turnover?from=2024-05-01&to=2024-05-01&group_by=date,venue', 'querystring/group_by', /"venue" is not a group key/],
    ['turnover?from=2024-05-01&to=2024-05-01&meeting_id=0', 'querystring/meeting_id', /positive integer/],
    ['turnover?from=2024-05-01&to=2024-05-01&meeting_id=1;DROP', 'querystring/meeting_id', /positive integer/],
    ['late-uploads?from=2024-05-01', 'querystring/to', /required/],
    ['late-uploads?from=20240501&to=2024-05-01', 'querystring/from', /YYYY-MM-DD/],
    ['late-uploads?from=2024-05-01&to=2024-05-01&meeting_id=x', 'querystring/meeting_id', /positive integer/],
    ['turnover?from=0000-01-01&to=0000-01-02', 'querystring/from', /years 1900 to 9999, got "0000-01-01"/],
    ['turnover?from=0000-01-01&to=0000-01-02', 'querystring/to', /years 1900 to 9999, got "0000-01-02"/],
    ['late-uploads?from=1899-12-31&to=1900-01-01', 'querystring/from', /years 1900 to 9999/],
  ];
  for (const [query, field, message] of cases) {
    const res = await report(a, query);
    assert.equal(res.statusCode, 400, query);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    const body = res.json();
    const error = body.errors.find((e: { field: string }) => e.field === field);
    assert.ok(error, `${query}: ${res.body}`);
    assert.match(error.message, message, query);
    assert.match(body.detail, new RegExp(`querystring parameter "${field.split('/')[1]}":? `), query);
  }
  const missing = (await report(a, 'turnover?to=2024-05-01')).json();
  assert.equal(missing.detail, 'querystring parameter "from" is required');
  assert.equal((await report(a, 'turnover?from=2024-05-02&to=2024-05-01')).json().detail, 'querystring parameter "to" must not be before from (2024-05-02)');
  assert.equal((await rows(a, 'turnover?from=2024-01-01&to=2024-12-31')).length, 1); // 366 days: allowed
});

test('no token is 401; a token with neither upload nor report is 403', async () => {
  const anonymous = await ctx.app.inject({ url: '/reports/turnover?from=x' });
  assert.equal(anonymous.statusCode, 401);
  const staff = await seedClient(ctx, { scopes: ['backoffice'] });
  const res = await report(staff, 'late-uploads?from=2024-05-01&to=2024-05-01');
  assert.equal(res.statusCode, 403);
  assert.match(res.json().detail, /"upload" \(own tenant\) or "report"/);
});

test('scope report with venues (a track owner): every tenant\'s bets on meetings at its venues, not its state\'s customers elsewhere', async () => {
  const flemington = await seedClient(ctx, { scopes: ['report'], venues: ['vic:flemington'] });
  // Meeting 200 (Flemington): a5, a6, the multi m1 on its second leg (its first is at Randwick), b1.
  // Not a2, a VIC customer at Randwick, which the VIC authority sees.
  const all = await rows(flemington, 'turnover?from=2024-05-01&to=2024-05-02&group_by=tenant_id,meeting_id,race_number');
  // C's multi-leg cases: mm on its second leg, the one at Flemington (its first is at Randwick),
  // cancelled since; nl and the quaddie q1 on their lowest legs uploaded, both in race 3.
  assert.deepEqual(all.filter((r) => r.tenant_id === c.tenant.tenant_id).map((r) => [r.race_number, r.bets, r.void_bets, r.turnover]),
    [[2, 1, 1, '0.00'], [3, 2, 0, '6.00']]);
  const got = all.filter((r) => r.tenant_id === a.tenant.tenant_id || r.tenant_id === b.tenant.tenant_id);
  assert.ok(got.length > 0 && (await rows(flemington, 'turnover?from=2024-05-01&to=2024-05-02&group_by=meeting_id')).every((r) => r.meeting_id === 200));
  assert.deepEqual(got.map((r) => [r.tenant_id === a.tenant.tenant_id ? 'A' : 'B', r.meeting_id, r.race_number, r.bets, r.turnover]).sort(), [
    ['A', 200, 2, 3, '33.33'], ['B', 200, 2, 1, '50.00'],
  ]);
  const randwick = await seedClient(ctx, { scopes: ['report'], venues: ['NSW:Randwick:T'] });
  const late = await report(randwick, 'late-uploads?from=2024-05-01&to=2024-05-02');
  assert.equal(late.statusCode, 200, late.body);
  assert.deepEqual(late.json().rows.map((r: Record<string, unknown>) => [r.meeting_id, r.late_bets, r.late_changes]), [[100, 0, 1]], 'a1, corrected late');
  assert.deepEqual((await report(flemington, 'late-uploads?from=2024-05-01&to=2024-05-02')).json().rows, []);
  // The name alone is not the track: another jurisdiction's or another code's Flemington sees nothing.
  for (const venue of ['NSW:Flemington', 'VIC:Flemington:H']) {
    const other = await seedClient(ctx, { scopes: ['report'], venues: [venue] });
    assert.deepEqual(await rows(other, 'turnover?from=2024-05-01&to=2024-05-02'), [], venue);
  }
});

test('every row is of one currency: an authority\'s total over an AUD and an NZD operator is two rows, never their sum', async () => {
  const nz = await seedClient(ctx, { agencies: ['NZT'], currency: 'NZD' });
  await ctx.services.catalogue.importMeetings([{ meeting_id: 400, date: '2024-05-03', venue: 'Caulfield', jurisdiction: 'VIC', code: 'T', races: [] }]);
  const day = '2024-05-03T18:00:00+10:00';
  await upload(nz, day, 400, 1, [bet('n1', { source: 'NZT', amount: 30, payout: 12, user_state: 'VIC', currency: undefined })]);
  await upload(b, day, 400, 1, [bet('b3', { source: 'XB', amount: 50, user_state: 'VIC' })]);
  const total = await rows(vic, 'turnover?from=2024-05-03&to=2024-05-03');
  assert.deepEqual(total.map((r) => [r.currency, r.bets, r.turnover, r.payout]), [['AUD', 1, '50.00', '0.00'], ['NZD', 1, '30.00', '12.00']]);
  const byRace = await rows(vic, 'turnover?from=2024-05-03&to=2024-05-03&group_by=currency,race_number');
  assert.deepEqual(byRace.map((r) => Object.keys(r).slice(0, 2)), [['currency', 'race_number'], ['currency', 'race_number']], 'asked for, it keeps its place');
});
