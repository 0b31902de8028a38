// GET /public/bets (reading a race back, keyset pagination, tenant isolation) and round trips of
// uploaded values, including the sample payloads in examples/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { buildBet } from '../../../test/factories/bet-factory.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  client = await seedClient(ctx, { agencies: ['TAB', 'XBET'] });
});
after(() => ctx.close());

const example = (name: string) => JSON.parse(readFileSync(new URL(`../../../examples/${name}`, import.meta.url), 'utf8'));

function post(url: string, payload: unknown, headers: Record<string, string> = client.auth) {
  return ctx.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
}
const forged = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
function list(query: string, headers: Record<string, string> = client.auth) {
  return ctx.app.inject({ method: 'GET', url: `/public/bets?${query}`, headers });
}

test('the sample V1 and V2 payloads are accepted and read back in upload field names', async () => {
  const v2 = await post('/public/uploadRaceV2', example('upload-v2.json'));
  assert.equal(v2.statusCode, 200, v2.body);
  assert.equal(v2.json().created, 5);
  const v1 = await post('/public/uploadRace', example('upload-v1.json'));
  assert.equal(v1.statusCode, 200, v1.body);
  assert.equal(v1.json().created, 5); // integer ids 100234.. are other bets than "A-100234"..

  const res = await list('meeting_id=1234567&race_number=7&limit=100');
  assert.equal(res.statusCode, 200);
  const { bets, next_cursor } = res.json();
  assert.equal(next_cursor, null);
  assert.equal(bets.length, 10);
  const multi = bets.find((b: { id: string }) => b.id === 'A-100235');
  assert.deepEqual(
    { id: multi.id, leg: multi.leg, type: multi.type, runner_number: multi.runner_number, amount: multi.amount, price: multi.price,
      payout: multi.payout, net_result: multi.net_result, user_state: multi.user_state, currency: multi.currency, source: multi.source,
      time: multi.time, meeting_id: multi.meeting_id, race_number: multi.race_number, revision: multi.revision, late: multi.late },
    { id: 'A-100235', leg: 2, type: 'multi', runner_number: 2, amount: '6', price: '1.55', payout: '14.415', net_result: '-8.415',
      user_state: 'VIC', currency: 'AUD', source: 'TAB', time: '2024-05-01T02:10:05.000Z', meeting_id: 1234567, race_number: 7,
      revision: 1, late: true },
  );
  const boxed = bets.find((b: { id: string }) => b.id === 'A-100236');
  assert.equal(boxed.exotics_selection, '1,2,3,8(BOXED)');
  assert.equal(boxed.terminal_id, 'T-0042');
  const flexi = bets.find((b: { id: string }) => b.id === 'A-100237');
  assert.equal(flexi.amount, '3.333333');
  const backed = bets.find((b: { id: string }) => b.id === '100238');
  assert.deepEqual([backed.back_indicator, backed.bet_back_id, backed.bet_back_amount, backed.status], [true, '99881', '20', 'FullRefund']);
});

test('text with quotes, backslashes, commas, braces and the word NULL is stored exactly', async () => {
  const names = ['O"Brien', 'back\\slash', 'a,b', '{x}', 'NULL', 'Zoë 🏇'];
  const bets = names.map((user_name, i) => buildBet({ id: `esc-${i}`, user_name, info_type: i === 0 ? null : 'x' }));
  const res = await post('/public/uploadRaceV2', { meeting_id: 2001, race_number: 1, bets });
  assert.equal(res.statusCode, 200, res.body);
  const back = (await list('meeting_id=2001&race_number=1')).json().bets;
  assert.deepEqual(back.map((b: { user_name: string }) => b.user_name), names);
  assert.equal(back[0].info_type, null);
});

test('keyset pagination returns every bet of the race exactly once, in key order', async () => {
  const bets = Array.from({ length: 25 }, (_, i) => buildBet({ id: `p-${String(i).padStart(2, '0')}`, source: i % 3 ? 'TAB' : 'XBET' }));
  assert.equal((await post('/public/uploadRaceV2', { meeting_id: 2002, race_number: 4, bets })).statusCode, 200);
  await post('/public/uploadRaceV2', { meeting_id: 2002, race_number: 5, bets: [buildBet({ id: 'other-race' })] });
  const seen: string[] = [];
  let cursor: string | null = '';
  let pages = 0;
  while (cursor !== null) {
    const res = await list(`meeting_id=2002&race_number=4&limit=10${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.statusCode, 200);
    const page: { bets: Array<{ source: string; id: string }>; next_cursor: string | null } = res.json();
    seen.push(...page.bets.map((b) => `${b.source}/${b.id}`));
    cursor = page.next_cursor;
    pages++;
  }
  assert.equal(pages, 3);
  assert.equal(seen.length, 25);
  assert.deepEqual(seen, [...seen].sort());
  const xbet = (await list('meeting_id=2002&race_number=4&source=xbet')).json().bets;
  assert.equal(xbet.length, 9);
});

test('another tenant sees none of these bets; bad parameters are 400', async () => {
  const other = await seedClient(ctx, { agencies: ['TAB'] });
  const res = await list('meeting_id=2002&race_number=4', other.auth);
  assert.deepEqual(res.json(), { bets: [], next_cursor: null });
  for (const q of ['race_number=4', 'meeting_id=2002', 'meeting_id=x&race_number=4', 'meeting_id=2002&race_number=4&limit=0',
    'meeting_id=2002&race_number=4&limit=1001', 'meeting_id=2002&race_number=4&cursor=garbage',
    // Forged cursors and sources that could reach SQL as a NUL byte or an out-of-range integer.
    `meeting_id=2002&race_number=4&cursor=${forged(['TAB', 'p-01', 1e300])}`, `meeting_id=2002&race_number=4&cursor=${forged(['TAB\u0000', 'p-01', 1])}`,
    `meeting_id=2002&race_number=4&cursor=${forged(['TAB', 'p\u0000', 1])}`, 'meeting_id=2002&race_number=4&source=%00',
    'meeting_id=2002&race_number=4&source=a%20b']) {
    const bad = await list(q);
    assert.equal(bad.statusCode, 400, q);
    assert.match(String(bad.headers['content-type']), /application\/problem\+json/);
  }
  assert.equal((await list('meeting_id=2002&race_number=4', {})).statusCode, 401);
});

test('a client with several agencies must name the source; an unknown source is refused', async () => {
  const res = await post('/public/uploadRaceV2', { meeting_id: 2003, race_number: 1, bets: [buildBet({ source: undefined }), buildBet({ id: 'z', source: 'NOPE' })] });
  assert.equal(res.statusCode, 400);
  assert.deepEqual(res.json().errors.map((e: { field: string }) => e.field), ['bets/0/source', 'bets/1/source']);
});
