// Every report route over the oldest and the newest bet time an upload accepts (years from 1900 to
// now): a bet of 1900 uploaded today is more than 2^31 seconds late, which must not overflow.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

type Seeded = Awaited<ReturnType<typeof seedClient>>;
let ctx: TestContext;
let operator: Seeded;
let authority: Seeded;
let other: Seeded; // another tenant's operator: the authority's report spans both tenants
const OLDEST = '1900-01-01T12:00:00+10:00';
const today = () => new Date().toISOString().slice(0, 10);

async function upload(as: Seeded, meetingId: number, time: string) {
  const bets = [buildBet({ id: `b-${meetingId}`, time, source: 'TAB', user_state: 'NSW', status: 'Paid', payout: 0, net_result: undefined })];
  const res = await ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify({ meeting_id: meetingId, race_number: 1, bets }),
    headers: { 'content-type': 'application/json', ...as.auth },
  });
  assert.equal(res.statusCode, 200, res.body);
}

before(async () => {
  ctx = await createTestApp({ WAGERLINE_TOKEN_TTL_SECONDS: '86400' });
  operator = await seedClient(ctx, { agencies: ['TAB'] });
  other = await seedClient(ctx, { agencies: ['TAB'] });
  authority = await seedClient(ctx, { scopes: ['report'], jurisdictions: ['NSW'] });
  await upload(operator, 1, OLDEST);
  await upload(other, 2, new Date().toISOString());
});
after(() => ctx.close());

const ranges = () => [['1900-01-01', '1900-12-31'], [today(), today()]] as const;

for (const route of ['turnover', 'late-uploads']) {
  for (const accept of ['application/json', 'text/csv']) {
    test(`${route} (${accept}) answers for the oldest and the newest racing days an upload accepts`, async () => {
      for (const as of [operator, authority, other]) {
        for (const [from, to] of ranges()) {
          const res = await ctx.app.inject({ url: `/reports/${route}?from=${from}&to=${to}`, headers: { ...as.auth, accept } });
          assert.equal(res.statusCode, 200, `${from}..${to}: ${res.body}`);
        }
      }
    });
  }
}

test('late-uploads gives the delay of a 1900 bet exactly, as a JSON integer', async () => {
  for (const as of [operator, authority]) {
    const res = await ctx.app.inject({ url: '/reports/late-uploads?from=1900-01-01&to=1900-12-31', headers: as.auth });
    assert.equal(res.statusCode, 200, res.body);
    const [row] = res.json().rows;
    assert.equal(typeof row.max_delay_seconds, 'number');
    assert.ok(row.max_delay_seconds > 2 ** 31, String(row.max_delay_seconds));
    assert.ok(Number.isSafeInteger(row.max_delay_seconds));
  }
});

test('a bet on 1900-01-01 in its own offset but on 1899-12-31 in the operator\'s zone is refused: every stored bet is in some report', async () => {
  const sydney = await seedClient(ctx, { agencies: ['TAB'], timezone: 'Australia/Sydney' });
  const bets = [buildBet({ id: 'Y-1', time: '1900-01-01T01:00:00+14:00' })];
  const res = await ctx.app.inject({
    method: 'POST', url: '/public/uploadRaceV2', payload: JSON.stringify({ meeting_id: 9203, race_number: 1, bets }),
    headers: { 'content-type': 'application/json', ...sydney.auth },
  });
  assert.equal(res.statusCode, 400, res.body);
  assert.deepEqual(res.json().errors.map((e: { field: string }) => e.field), ['bets/0/time']);
  assert.match(res.json().errors[0].message, /falls on 1899-12-31 in the operator's time zone \(Australia\/Sydney\), before the first racing day/);
  const { rows } = await ctx.db.pool.query("SELECT min(racing_day)::text AS first FROM reported_bets");
  assert.equal(rows[0].first, '1900-01-01', 'no stored bet is on a day before the reports\' first');
});
