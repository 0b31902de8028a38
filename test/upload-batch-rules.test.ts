// Rules of one upload request as a whole, over HTTP on a real database: one meeting and one race
// per request (spec 8), and errors that name the field actually wrong.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { buildBet } from './factories/bet-factory.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  ctx.clock.set(new Date('2024-05-01T18:00:00+10:00'));
  client = await seedClient(ctx, { agencies: ['TAB'] });
});
after(() => ctx.close());

function upload(payload: unknown, url = '/public/uploadRaceV2') {
  return ctx.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...client.auth }, payload: JSON.stringify(payload) });
}

async function storedIds(meetingId: number): Promise<string[]> {
  const { rows } = await ctx.db.pool.query<{ bet_id: string }>('SELECT bet_id FROM reported_bets WHERE meeting_id = $1 ORDER BY bet_id', [meetingId]);
  return rows.map((r) => r.bet_id);
}

test('a bet naming another meeting or race than its request is refused, nothing stored', async () => {
  const res = await upload({ meeting_id: 7001, race_number: 1, bets: [
    buildBet({ id: 'same', meeting_id: 7001, race_number: 1 }),
    buildBet({ id: 'other-race', meeting_id: '7001', race_number: 5 }),
    buildBet({ id: 'other-meeting', meeting_id: 7002, race_number: 1 }),
  ] });
  assert.equal(res.statusCode, 400, res.body);
  const errors = res.json().errors.map((e: { index: number; field: string; message: string }) => [e.index, e.field, e.message]);
  assert.deepEqual(errors.map((e: unknown[]) => e.slice(0, 2)), [[1, 'bets/1/race_number'], [2, 'bets/2/meeting_id']]);
  assert.match(errors[0][2], /^is 5, but this request is for meeting 7001 race 1: one meeting and one race per request/);
  assert.deepEqual(await storedIds(7001), []);
});

test('a bet repeating its request\'s meeting and race (as a digit string too) is accepted without a warning', async () => {
  const res = await upload({ meeting_id: '7003', race_number: 2, bets: [buildBet({ id: 'rep', meeting_id: '7003', race_number: 2 })] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().warnings, []);
  assert.deepEqual(await storedIds(7003), ['rep']);
});

test('an exotic bet with an empty runner_number ("" from a CSV cell) is refused on runner_number, not as "both given"', async () => {
  const res = await upload({ meeting_id: 7004, race_number: 1, bets: [
    buildBet({ id: 'ex-empty', type: 'exacta', runner_number: '', exotics_selection: '1/2' }),
    buildBet({ id: 'ex-both', type: 'exacta', runner_number: 4, exotics_selection: '1/2' }),
  ] });
  assert.equal(res.statusCode, 400, res.body);
  const errors = res.json().errors.map((e: { field: string; message: string }) => [e.field, e.message]);
  assert.equal(errors.length, 2, res.body);
  assert.equal(errors[0][0], 'bets/0/runner_number');
  assert.match(errors[0][1], /must be an integer from 1 to 9999 .*omit it/);
  assert.deepEqual(errors[1], ['bets/1/exotics_selection', 'give runner_number or exotics_selection, not both']);
});

test('U+0000 in a bet is refused in the upload\'s terms: {index, id, field: bets/i/…}, nothing stored', async () => {
  const res = await upload({ meeting_id: 7005, race_number: 1, bets: [buildBet({ id: 'ok' }), buildBet({ id: 'nul', user_id: 'a\u0000b' })] });
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json();
  assert.equal(body.code, 'validation_failed');
  assert.deepEqual(body.errors, [{ index: 1, id: 'nul', field: 'bets/1/user_id', message: 'must not contain U+0000 (a NUL character)' }]);
  assert.match(body.detail, /^the batch was rejected, nothing was stored: body field "bets\[1\]\.user_id" must not contain U\+0000/);
  assert.deepEqual(await storedIds(7005), []);
});
