// A key twice in one object of an upload body is refused (400 validation_failed naming where), never
// read as its last value: {"bets":[A,B],"bets":[C]} stored C alone and answered 200. Where it is
// named: the scan reads the text while the value keeps the last of repeated keys, so a repeat in a
// first "bets" replaced by "bets": null once answered 500; and an empty object in an array once
// made the next string of that array a key, naming a valid bet.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let op: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  op = await seedClient(ctx, { agencies: ['TAB'] });
});
after(() => ctx.close());

const post = (payload: string, url = '/public/uploadRaceV2') =>
  ctx.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...op.auth } });

const postAs = (payload: string, type = 'application/json') =>
  ctx.app.inject({ method: 'POST', url: '/public/uploadRaceV2', payload, headers: { 'content-type': type, ...op.auth } });

async function stored(meetingId: number): Promise<string[]> {
  const { rows } = await ctx.db.pool.query('SELECT bet_id FROM reported_bets WHERE meeting_id = $1 ORDER BY bet_id', [meetingId]);
  return rows.map((r) => r.bet_id);
}

test('a body with "bets" twice is refused, nothing stored', async () => {
  const first = JSON.stringify([buildBet({ id: 'DK-1' }), buildBet({ id: 'DK-2' })]);
  const second = JSON.stringify([buildBet({ id: 'DK-3' })]);
  const res = await post(`{"meeting_id":9201,"race_number":1,"bets":${first},"bets":${second}}`);
  assert.equal(res.statusCode, 400, res.body);
  const problem = res.json();
  assert.equal(problem.code, 'validation_failed');
  assert.deepEqual(problem.errors, [{ index: null, id: null, field: 'bets', message: problem.errors[0].message }]);
  assert.match(problem.detail, /^the batch was rejected, nothing was stored: body field "bets" repeats a key given earlier in the same object/);
  assert.deepEqual(await stored(9201), []);
});

test('a bet with "amount" twice: 400 naming bets[1].amount with the bet\'s index and id (V1 and V2)', async () => {
  const bet = JSON.stringify(buildBet({ id: 'DK-4', amount: 10 })).replace('"amount":10', '"amount":10,"amount":1000');
  const res = await post(`{"meeting_id":9202,"race_number":1,"bets":[${JSON.stringify(buildBet({ id: 'DK-5' }))},${bet}]}`);
  assert.equal(res.statusCode, 400, res.body);
  const [error] = res.json().errors;
  assert.deepEqual([error.index, error.id, error.field], [1, 'DK-4', 'bets/1/amount']);
  assert.match(res.json().detail, /body field "bets\[1\]\.amount" repeats a key/);
  const v1 = JSON.stringify(buildBet({ id: 7 })).replace('"id":7', '"id":7,"id":8');
  const res1 = await post(`{"meeting_id":9202,"race_number":1,"bets":[${v1}]}`, '/public/uploadRace');
  assert.deepEqual([res1.statusCode, res1.json().errors[0].field, res1.json().errors[0].id], [400, 'bets/0/id', 8]);
  assert.deepEqual(await stored(9202), []);
});

test('an escaped spelling of the same key is the same key; a repeat inside an unknown field counts too', async () => {
  const escaped = JSON.stringify(buildBet({ id: 'DK-6' })).replace('"user_id":', '"user_id":"x","\\u0075ser_id":');
  const res = await post(`{"meeting_id":9203,"race_number":1,"bets":[${escaped}]}`);
  assert.deepEqual([res.statusCode, res.json().errors[0].field], [400, 'bets/0/user_id'], res.body);
  const nested = JSON.stringify({ ...buildBet({ id: 'DK-7' }), extra: { a: 1 } }).replace('"a":1', '"a":1,"a":2');
  const res2 = await post(`{"meeting_id":9203,"race_number":1,"bets":[${nested}]}`);
  assert.deepEqual([res2.statusCode, res2.json().errors[0].field], [400, 'bets/0/extra/a'], res2.body);
  assert.deepEqual(await stored(9203), []);
});

test('a long repeated key is quoted short in the answer (at most 40 characters of it), "/" escaped as in a JSON pointer', async () => {
  const key = `a/${'k'.repeat(100_000)}`;
  const res = await post(`{"meeting_id":9204,"race_number":1,"bets":[${JSON.stringify(buildBet({ id: 'DK-8' }))}],"${key}":1,"${key}":2}`);
  assert.equal(res.statusCode, 400);
  assert.ok(res.body.length < 2000, `${res.body.length} characters`);
  assert.equal(res.json().errors[0].field, `a~1${'k'.repeat(38)}…`);
});

test('the same keys in different objects, and distinct keys, are fine', async () => {
  const bets = [buildBet({ id: 'DK-9' }), buildBet({ id: 'DK-10' })];
  const res = await post(JSON.stringify({ meeting_id: 9205, race_number: 1, bets }));
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(await stored(9205), ['DK-10', 'DK-9']);
});

test('a repeated key inside a first "bets" followed by "bets": null is a 400, not a 500', async () => {
  const res = await postAs('{"meeting_id":9301,"race_number":1,"bets":[{"amount":1,"amount":2}],"bets":null}');
  assert.equal(res.statusCode, 400, res.body);
});

test('a repeated key with charset=utf-8 or an upper-case media type is refused as with plain application/json', async () => {
  const bet = JSON.stringify(buildBet({ id: 'RF-1', amount: 10 })).replace('"amount":10', '"amount":10,"amount":1000');
  for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
    const res = await postAs(`{"meeting_id":9302,"race_number":1,"bets":[${bet}]}`, type);
    assert.deepEqual([res.statusCode, res.json().errors?.[0]?.field], [400, 'bets/0/amount'], `${type}: ${res.body}`);
  }
});

test('the repeated key is named where it is, also after an empty object in an array', async () => {
  const first = { ...buildBet({ id: 'RF-2' }), extra: [{}, 'k', 'k'] };
  const second = JSON.stringify(buildBet({ id: 'RF-3', amount: 10 })).replace('"amount":10', '"amount":10,"amount":1000');
  const res = await postAs(`{"meeting_id":9303,"race_number":1,"bets":[${JSON.stringify(first)},${second}]}`);
  assert.equal(res.statusCode, 400, res.body);
  assert.deepEqual(res.json().errors.map((e: any) => [e.index, e.id, e.field]), [[1, 'RF-3', 'bets/1/amount']]);
});
