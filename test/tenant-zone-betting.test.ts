// A tenant whose stored time zone PostgreSQL does not know (stored before creation checked it):
// its uploads are refused until the zone is replaced, and so are its users' new bets — POST
// /graphql placeBet refuses them before anything is reserved or written, with the stable code
// TENANT_MISCONFIGURED, and the wallet never hears of them (the bets it took before are still
// settled: tenant-zone-settlement.test.ts). Another tenant bets as
// before, and once the zone is replaced the tenant's users bet again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { CLIENT, until } from './wallet-fixtures.ts';

const RETIRED = 'Canada/East-Saskatchewan';
const MEETING = 779301;
let ctx: TestContext;
let sandbox: WalletSandbox;

before(async () => {
  ctx = await createTestApp();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  await ctx.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win'],
      runners: [1, 2].map((n) => ({ number: n, name: `R${n}`, win: 2 + n })) }],
  });
});
after(async () => {
  await sandbox.close();
  await ctx.close();
});

/** A tenant row as an earlier version stored it, past today's zone check, with the sandbox as its wallet and custom user auth. */
async function bettingTenant(zone: string): Promise<string> {
  const { rows } = await ctx.db.pool.query<{ tenant_id: string }>(
    "INSERT INTO tenants (name, currency, timezone) VALUES ('Zone Bet', 'AUD', $1) RETURNING tenant_id", [zone]);
  const tenantId = rows[0]!.tenant_id;
  await ctx.services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT, verify: false });
  await ctx.services.users.setAuth(tenantId, { mode: 'custom' });
  return tenantId;
}

const PLACE = 'mutation ($input: PlaceBetInput!) { placeBet(input: $input) { id status } }';

async function placeWin(tenantId: string, { userId = randomUUID(), key = randomUUID() } = {}):
  Promise<{ data: any; errors?: Array<{ message: string; extensions: { code: string } }> }> {
  const res = await ctx.app.inject({
    method: 'POST', url: '/graphql',
    headers: {
      'content-type': 'application/json', authorization: 'Bearer opaque-user-token', 'x-tenant-id': tenantId,
      'x-host-state-user': JSON.stringify({ userId, brandName: 'Zone Bet', brandUserId: 'u1', data: '{}' }),
    },
    payload: JSON.stringify({ query: PLACE, variables: { input: {
      idempotencyKey: key, type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }],
    } } }),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const rowsOf = async (table: 'bets' | 'wallet_calls', tenantId: string) =>
  (await ctx.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenantId])).rows[0]!.n;

test('placeBet for a tenant whose zone the database does not know: TENANT_MISCONFIGURED before any reserve or write', async () => {
  const misconfigured = await bettingTenant(RETIRED);
  const healthy = await bettingTenant('Australia/Sydney');

  const refused = await placeWin(misconfigured);
  assert.equal(refused.data, null);
  assert.deepEqual(refused.errors?.map((e) => [e.extensions.code, e.message]), [['TENANT_MISCONFIGURED',
    'bets cannot be placed now: the operator must fix this tenant\'s time zone setting first; nothing was reserved or stored']]);
  assert.deepEqual([await rowsOf('bets', misconfigured), await rowsOf('wallet_calls', misconfigured)], [0, 0]);
  assert.deepEqual(sandbox.requests(), [], 'the wallet saw no call');

  assert.equal((await placeWin(healthy)).data?.placeBet.status, 'ACCEPTED', 'another tenant bets as before');
  // A zone the database reads differently from Node.js (CET, an abbreviation to it) is named at
  // start and replaceable, but its users' bets are still taken: refusing them would stop an operator.
  assert.equal((await placeWin(await bettingTenant('CET'))).data?.placeBet.status, 'ACCEPTED', 'a misread zone still takes bets');

  // Replaced: seen within the user-auth configuration cache's 5 s.
  await ctx.tenants.setTimeZone(misconfigured, 'America/Regina');
  await until('a bet of the fixed tenant taken', async () => (await placeWin(misconfigured)).data?.placeBet.status === 'ACCEPTED', 8000);
  assert.equal(await rowsOf('bets', misconfigured), 1, 'the refusals before stored nothing');
});

test('a bet taken before the zone went bad is still answered to its replay; a new bet is refused', async () => {
  const tenantId = await bettingTenant('Australia/Sydney');
  const placer = { userId: randomUUID(), key: randomUUID() };
  const taken = (await placeWin(tenantId, placer)).data?.placeBet;
  assert.equal(taken?.status, 'ACCEPTED');
  // The zone lost afterwards (tzdata dropped the name, or a row written by hand).
  await ctx.db.pool.query('UPDATE tenants SET timezone = $2 WHERE tenant_id = $1', [tenantId, RETIRED]);
  await ctx.services.users.setAuth(tenantId, { mode: 'custom' }); // this process reads the tenant again at once
  assert.equal((await placeWin(tenantId)).errors?.[0]?.extensions.code, 'TENANT_MISCONFIGURED', 'a new bet is refused');
  // The client that never got its answer asks again with the same key: the bet it placed, not a refusal.
  assert.deepEqual((await placeWin(tenantId, placer)).data?.placeBet, taken);
  assert.equal(await rowsOf('bets', tenantId), 1);
});
