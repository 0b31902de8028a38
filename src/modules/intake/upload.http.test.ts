// HTTP behaviour of POST /public/uploadRace and /public/uploadRaceV2: every response status,
// all-or-nothing batches, idempotent re-uploads and revisions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBatch, buildBet } from '../../../test/factories/bet-factory.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_UPLOAD_BODY_LIMIT_BYTES: String(64 * 1024) });
  client = await seedClient(ctx, { agencies: ['TAB'] });
});
after(() => ctx.close());

function post(url: string, payload: unknown, headers: Record<string, string> = client.auth) {
  return ctx.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
}

async function count(sql: string, values: unknown[] = []): Promise<number> {
  const { rows } = await ctx.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, values);
  return Number(rows[0]!.n);
}

test('a valid V2 batch is stored: 200 with counts; the same batch again changes nothing', async () => {
  const batch = buildBatch({ meetingId: '1001', raceNumber: 1, count: 50, idPrefix: 'idem' });
  const first = await post('/public/uploadRaceV2', batch);
  assert.equal(first.statusCode, 200, first.body);
  const body = first.json();
  assert.deepEqual({ ...body, warnings: undefined }, { meeting_id: 1001, race_number: 1, received: 50, created: 50, updated: 0, unchanged: 0, warnings: undefined });
  assert.equal(await count("reported_bets WHERE meeting_id = 1001"), 50);

  const again = await post('/public/uploadRaceV2', batch);
  assert.equal(again.statusCode, 200);
  assert.deepEqual([again.json().created, again.json().updated, again.json().unchanged], [0, 0, 50]);
  assert.equal(await count("reported_bet_revisions WHERE meeting_id = 1001"), 0);
});

test('re-uploading a resulted bet updates it and keeps the earlier version as a revision', async () => {
  const unresulted = buildBet({ id: 'rev-1', status: 'Unresulted', resulted: false, payout: null, net_result: null });
  const r1 = await post('/public/uploadRaceV2', { meeting_id: 1002, race_number: 3, bets: [unresulted] });
  assert.equal(r1.json().created, 1);
  ctx.clock.advance(60_000);
  const paid = { ...unresulted, status: 'paid', resulted: true, payout: 35, net_result: -25 };
  const r2 = await post('/public/uploadRaceV2', { meeting_id: 1002, race_number: 3, bets: [paid] });
  assert.deepEqual([r2.json().created, r2.json().updated, r2.json().unchanged], [0, 1, 0]);

  const { rows: [bet] } = await ctx.db.pool.query("SELECT * FROM reported_bets WHERE bet_id = 'rev-1'");
  assert.equal(bet.status, 'Paid');
  assert.equal(bet.revision, 2);
  assert.equal(bet.payout, '35.000000');
  assert.ok(bet.last_received_at > bet.first_received_at);
  const { rows: history } = await ctx.db.pool.query(
    "SELECT revision, status, payout, last_received_at, superseded_at, current FROM reported_bet_history WHERE bet_id = 'rev-1' ORDER BY revision");
  assert.deepEqual(history.map((h) => [h.revision, h.status, h.payout, h.current]), [[1, 'Unresulted', null, false], [2, 'Paid', '35.000000', true]]);
  assert.deepEqual(history[0].superseded_at, bet.last_received_at);
});

test('V1 takes integer ids; V1 123 and V2 "123" are the same bet', async () => {
  const v1 = await post('/public/uploadRace', { meeting_id: 1003, race_number: 2, bets: [buildBet({ id: 123 })] });
  assert.equal(v1.statusCode, 200, v1.body);
  assert.equal(v1.json().created, 1);
  const v2 = await post('/public/uploadRaceV2', { meeting_id: 1003, race_number: 2, bets: [buildBet({ id: '123' })] });
  assert.deepEqual([v2.json().created, v2.json().unchanged], [0, 1]);
  const wrong = await post('/public/uploadRace', { meeting_id: 1003, race_number: 2, bets: [buildBet({ id: '123' })] });
  assert.equal(wrong.statusCode, 400);
  assert.equal(wrong.json().errors[0].field, 'bets/0/id');
});

test('one invalid bet rejects the batch: 400 problem+json listing every invalid bet, nothing stored', async () => {
  const bets = [
    buildBet({ id: 'ok-1' }),
    buildBet({ id: 'bad-1', type: 'trifecta', runner_number: undefined, exotics_selection: '1/2' }),
    buildBet({ id: 'ok-2' }),
    buildBet({ id: 'bad-2', status: 'Won', amount: -1 }),
  ];
  const res = await post('/public/uploadRaceV2', { meeting_id: 1004, race_number: 1, bets });
  assert.equal(res.statusCode, 400);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  const body = res.json();
  assert.equal(body.code, 'validation_failed');
  assert.deepEqual(body.errors.map((e: { index: number; id: string; field: string }) => [e.index, e.id, e.field]), [
    [1, 'bad-1', 'bets/1/exotics_selection'],
    [3, 'bad-2', 'bets/3/status'],
    [3, 'bad-2', 'bets/3/amount'],
  ]);
  assert.match(body.detail, /nothing was stored/);
  assert.equal(await count('reported_bets WHERE meeting_id = 1004'), 0);
});

test('0 or 1,001 bets is a 400, never a truncation', async () => {
  const none = await post('/public/uploadRaceV2', { meeting_id: 1005, race_number: 1, bets: [] });
  assert.equal(none.statusCode, 400);
  assert.equal(none.json().errors[0].field, 'bets');
  const tooMany = await post('/public/uploadRaceV2', { meeting_id: 1005, race_number: 1, bets: Array.from({ length: 1001 }, (_, i) => ({ id: String(i) })) });
  assert.equal(tooMany.statusCode, 400);
  assert.deepEqual(tooMany.json().errors, [{ index: null, id: null, field: 'bets', message: 'must hold 1 to 1000 bets, got 1001' }]);
  assert.equal(await count('reported_bets WHERE meeting_id = 1005'), 0);
});

test('malformed JSON is 400, a wrong content type 415, an oversized body 413 — all problem+json', async () => {
  const malformed = await ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', headers: { 'content-type': 'application/json', ...client.auth }, payload: '{"meeting_id": 1,' });
  assert.equal(malformed.statusCode, 400);
  assert.equal(malformed.json().code, 'malformed_json');
  const empty = await ctx.app.inject({ method: 'POST', url: '/public/uploadRace', headers: { 'content-type': 'application/json', ...client.auth }, payload: '' });
  assert.deepEqual([empty.statusCode, empty.json().code], [400, 'malformed_json']);
  for (const body of ['null', '[]', '"bets"']) {
    const notObject = await ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', headers: { 'content-type': 'application/json', ...client.auth }, payload: body });
    assert.equal(notObject.statusCode, 400, body);
    assert.deepEqual(notObject.json().errors.map((e: { field: string }) => e.field), [''], body);
  }
  const charset = await post('/public/uploadRaceV2', { meeting_id: 1006, race_number: 2, bets: [buildBet({ id: 'cs-1' })] },
    { ...client.auth, 'content-type': 'application/json; charset=utf-8' });
  assert.equal(charset.statusCode, 200, charset.body);
  const form = await ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', headers: { 'content-type': 'application/x-www-form-urlencoded', ...client.auth }, payload: 'a=1' });
  assert.equal(form.statusCode, 415);
  assert.equal(form.json().code, 'unsupported_media_type');
  const text = await ctx.app.inject({ method: 'POST', url: '/public/uploadRace', headers: { 'content-type': 'text/plain', ...client.auth }, payload: '{}' });
  assert.equal(text.statusCode, 415);
  const big = await post('/public/uploadRaceV2', buildBatch({ meetingId: 1006, raceNumber: 1, count: 400 }));
  assert.equal(big.statusCode, 413);
  assert.equal(big.json().code, 'payload_too_large');
  assert.match(String(big.headers['content-type']), /application\/problem\+json/);
});

test('no or bad token is 401, a token without scope upload is 403', async () => {
  const batch = { meeting_id: 1007, race_number: 1, bets: [buildBet()] };
  const none = await post('/public/uploadRaceV2', batch, {});
  assert.equal(none.statusCode, 401);
  assert.equal(none.json().code, 'invalid_token');
  const bad = await post('/public/uploadRace', batch, { authorization: 'Bearer not.a.token' });
  assert.equal(bad.statusCode, 401);
  const reporter = await seedClient(ctx, { scopes: ['report'] });
  const forbidden = await post('/public/uploadRaceV2', batch, reporter.auth);
  assert.equal(forbidden.statusCode, 403);
  assert.equal(forbidden.json().code, 'insufficient_scope');
  const list = await ctx.app.inject({ method: 'GET', url: '/public/bets?meeting_id=1007&race_number=1', headers: reporter.auth });
  assert.equal(list.statusCode, 403);
});

test('warnings name each unknown field once and flag stakes with more than 2 decimals', async () => {
  const bets = [
    buildBet({ id: 'w-1', promo_code: 'X', amount: 3.333333333333333, net_result: null }),
    buildBet({ id: 'w-2', promo_code: 'Y', extra: 1, amount: 3.333333333333333, net_result: null }),
  ];
  const res = await post('/public/uploadRaceV2', { meeting_id: 1008, race_number: 1, bets, channel: 'web' });
  assert.equal(res.statusCode, 200, res.body);
  const warnings = res.json().warnings as Array<{ code: string; message: string; count: number }>;
  const unknown = warnings.filter((w) => w.code === 'unknown_field').map((w) => [w.message, w.count]);
  assert.deepEqual(unknown.sort(), [
    ['unknown field "channel" ignored', 1], ['unknown field "extra" ignored', 1], ['unknown field "promo_code" ignored', 2],
  ]);
  assert.deepEqual(warnings.filter((w) => w.code === 'precision').map((w) => w.count), [2]);
  const { rows } = await ctx.db.pool.query("SELECT amount::text FROM reported_bets WHERE bet_id = 'w-1'");
  assert.equal(rows[0].amount, '3.333333');
});
