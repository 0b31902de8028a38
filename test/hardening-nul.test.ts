// U+0000 from a client never reaches PostgreSQL (which refuses the byte: a 500 before): credentials
// holding it are an unknown client, any other string holding it is a 400 naming where it is.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  client = await seedClient(ctx, { scopes: ['upload'] });
});
after(() => ctx.close());

const secret = () => client.client.client_secret;
const basic = (id: string, pw: string) => `Basic ${Buffer.from(`${id}:${pw}`).toString('base64')}`;

test('client_id holding U+0000 is invalid_client, in a JSON body, a form body and Basic', async () => {
  const cases = [
    { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ grant_type: 'client_credentials', client_id: 'wl_\u0000', client_secret: secret() }) },
    { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=%00&client_secret=x` },
    { headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('wl_%00', 'x') }, payload: 'grant_type=client_credentials' },
  ];
  for (const c of cases) {
    const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', ...c });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().error, 'invalid_client');
  }
});

test('U+0000 in upload fields and keys is a 400 naming the field as the upload\'s errors do (bets/0/…); nothing is stored', async () => {
  const bodies: Array<[unknown, string]> = [
    [{ meeting_id: 1, race_number: 1, bets: [buildBet({ id: 'n-1', user_id: 'cust\u0000' })] }, 'bets/0/user_id'],
    [{ meeting_id: 1, race_number: 1, bets: [buildBet({ id: 'n-\u0000' })] }, 'bets/0/id'],
    [{ meeting_id: '1\u0000', race_number: 1, bets: [buildBet({ id: 'n-2' })] }, 'meeting_id'],
    [{ meeting_id: 1, race_number: 1, bets: [{ ...buildBet({ id: 'n-3' }), 'x\u0000': 1 }] }, 'bets/0/x\\u0000'],
  ];
  for (const [body, field] of bodies) {
    const res = await ctx.app.inject({
      method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify(body), headers: { 'content-type': 'application/json', ...client.auth },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json().errors.map((e: { field: string }) => e.field), [field]);
  }
  const { rows } = await ctx.db.pool.query('SELECT 1 FROM reported_bets');
  assert.equal(rows.length, 0);
});

test('U+0000 in report parameters and the /public/bets query is a 400 naming the parameter', async () => {
  const urls: Array<[string, string]> = [
    ['/reports/turnover?from=2024-01-01%00&to=2024-01-02', 'querystring/from'],
    ['/reports/turnover?from=2024-01-01&to=2024-01-02&group_by=%00', 'querystring/group_by'],
    ['/reports/turnover?from=2024-01-01&to=2024-01-02&meeting_id=1%00', 'querystring/meeting_id'],
    ['/reports/late-uploads?from=2024-01-01&to=%00', 'querystring/to'],
    ['/public/bets?meeting_id=1&race_number=1&source=T%00', 'querystring/source'],
    ['/public/bets?meeting_id=1&race_number=1&cursor=%00', 'querystring/cursor'],
  ];
  for (const [url, field] of urls) {
    const res = await ctx.app.inject({ url, headers: client.auth });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.deepEqual(res.json().errors.map((e: { field: string }) => e.field), [field], url);
  }
});

test('meeting import files: a venue holding U+0000 is refused with the record named, before SQL', async () => {
  const { toMeetings } = await import('../src/modules/catalogue/catalogue-file.ts');
  assert.throws(
    () => toMeetings([{ meeting_id: 1, date: '2024-05-01', venue: 'Rand\u0000wick', jurisdiction: 'NSW', code: 'T' }]),
    /record 1: venue must not contain control characters/,
  );
});
