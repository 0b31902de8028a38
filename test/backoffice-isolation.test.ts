// A back-office client sees its own tenant and the tenants granted to it, nothing else: asking for
// another tenant is FORBIDDEN and returns nothing of it; another tenant's bet id is simply not
// found; `wagerline client grant` widens what a group operator's client sees.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { backofficeClient, codes, GET_BETS, post, type BackofficeClient } from './helpers/backoffice.ts';
import { cliEnv, runCli } from './helpers/cli.ts';

let ctx: TestContext;
let a: BackofficeClient;
let b: BackofficeClient;
let betsA: string[];
let betsB: string[];
before(async () => {
  ctx = await createTestApp();
  [a, b] = [await backofficeClient(ctx), await backofficeClient(ctx)];
  betsA = await insertBulkBets(ctx.db.pool, { tenantId: a.tenantId, count: 3 });
  betsB = await insertBulkBets(ctx.db.pool, { tenantId: b.tenantId, count: 3 });
});
after(() => ctx.close());

/** The app reads a client's grants again once its cache time has passed (cachedClientLookup, backoffice.service.ts). */
const afterClientCache = () => ctx.clock.advance(ctx.config.WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS * 1000);
const getBets = (client: BackofficeClient, tenant: { ids: string[]; bet_ids?: string[] }) =>
  post(ctx, client.headers, GET_BETS, { input: { tenant } }, 'GetBets');
const CANCEL = 'mutation CancelBet($bet: BetRef!) { cancelBet(bet: $bet) { id status } }';
const statusOf = async (betId: string) => (await ctx.db.pool.query<{ status: string }>('SELECT status FROM bets WHERE bet_id = $1', [betId])).rows[0]!.status;

test('a client reads its own tenant', async () => {
  const { res, body } = await getBets(a, { ids: [a.tenantId] });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(body.data!.getBets.bets.map((x: { id: string }) => x.id), betsA);
});

test('asking for another tenant, alone or with its own, is FORBIDDEN and returns nothing of it', async () => {
  for (const ids of [[b.tenantId], [a.tenantId, b.tenantId], [b.tenantId.toUpperCase()]]) {
    const { res, body } = await getBets(a, { ids });
    assert.equal(res.statusCode, 403, res.body);
    assert.deepEqual(codes(body), ['FORBIDDEN']);
    assert.equal(body.errors![0]!.extensions.reason, 'tenant_not_granted');
    assert.equal(body.data, null);
    for (const id of betsB) assert.ok(!res.body.includes(id), 'nothing of the other tenant in the answer');
  }
});

test('bet ids of another tenant mixed into a request return only the client\'s own', async () => {
  const { body } = await getBets(a, { ids: [a.tenantId], bet_ids: [betsB[0]!, betsA[1]!, betsB[1]!, betsA[0]!] });
  assert.deepEqual(body.data!.getBets.bets.map((x: { id: string }) => x.id).sort(), [betsA[0], betsA[1]].sort());
  assert.equal(body.data!.getBets.pagination.count, 2);
  const none = await getBets(a, { ids: [a.tenantId], bet_ids: [betsB[2]!] });
  assert.deepEqual(none.body.data!.getBets, { bets: [], pagination: { last_id: null, count: 0, has_more: false } });
});

test('cancelling another tenant\'s bet: FORBIDDEN for its tenant, NOT_FOUND under the client\'s own; nothing changes', async () => {
  const forbidden = await post(ctx, a.headers, CANCEL, { bet: { id: betsB[0], tenant_id: b.tenantId } });
  assert.deepEqual([forbidden.res.statusCode, codes(forbidden.body)], [403, ['FORBIDDEN']]);
  const hidden = await post(ctx, a.headers, CANCEL, { bet: { id: betsB[0], tenant_id: a.tenantId } });
  assert.deepEqual([hidden.res.statusCode, codes(hidden.body), hidden.body.data], [200, ['NOT_FOUND'], null]);
  assert.equal(await statusOf(betsB[0]!), 'accepted');
});

test('ids that are not UUIDs are BAD_USER_INPUT, not a lookup; the message names the field', async () => {
  for (const tenant of [{ ids: ['tenant-a'] }, { ids: [a.tenantId], bet_ids: ['42'] }, { ids: [] }]) {
    const { res, body } = await getBets(a, tenant);
    assert.deepEqual([res.statusCode, codes(body)], [200, ['BAD_USER_INPUT']], res.body);
  }
  const message = async (input: Record<string, unknown>) =>
    (await post(ctx, a.headers, 'query GetBets($input: GetBetsInput!) { getBets(input: $input) { pagination { count } } }', { input }, 'GetBets'))
      .body.errors![0]!.message;
  assert.equal(await message({ tenant: { ids: ['tenant-a'] } }), 'tenant id "tenant-a" is not a UUID');
  assert.equal(await message({ tenant: { ids: [a.tenantId], bet_ids: [betsA[0], '42'] } }), 'tenant.bet_ids[1] must be a bet\'s UUID, got "42"');
  assert.equal(await message({ tenant: { ids: [a.tenantId] }, pagination: { last_id: 'abc' } }),
    'pagination.last_id must be a bet\'s UUID (the last_id of the page before), got "abc"');
});

test('client grant widens what a client sees, and a new grant replaces the old (CLI: one JSON object)', async () => {
  const c = await backofficeClient(ctx);
  const betsC = await insertBulkBets(ctx.db.pool, { tenantId: c.tenantId, count: 2 });
  const env = cliEnv(ctx.db.url);
  const granted = await runCli(['client', 'grant', a.clientId, '--tenants', `${b.tenantId},${c.tenantId}`], env);
  assert.equal(granted.code, 0, granted.stderr);
  assert.equal(granted.stdout.trim().split('\n').length, 1);
  assert.deepEqual(granted.json(), { client_id: a.clientId, tenant_id: a.tenantId, granted: [b.tenantId, c.tenantId].sort(), tenants: [a.tenantId, ...[b.tenantId, c.tenantId].sort()] });
  afterClientCache();
  const all = await getBets(a, { ids: [a.tenantId, b.tenantId, c.tenantId] });
  assert.deepEqual(all.body.data!.getBets.bets.map((x: { id: string }) => x.id).sort(), [...betsA, ...betsB, ...betsC].sort());
  assert.deepEqual(codes((await getBets(b, { ids: [a.tenantId] })).body), ['FORBIDDEN'], 'a grant is one way');

  assert.deepEqual((await runCli(['client', 'grant', a.clientId, '--tenants', b.tenantId], env)).json().granted, [b.tenantId]);
  afterClientCache();
  assert.deepEqual(codes((await getBets(a, { ids: [c.tenantId] })).body), ['FORBIDDEN']);
  assert.deepEqual((await runCli(['client', 'grant', a.clientId, '--tenants', 'none'], env)).json().granted, []);
  afterClientCache();
  assert.deepEqual(codes((await getBets(a, { ids: [b.tenantId] })).body), ['FORBIDDEN']);
  const unknown = await runCli(['client', 'grant', a.clientId, '--tenants', '00000000-0000-4000-8000-000000000000'], env);
  assert.notEqual(unknown.code, 0);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /no tenant with id/);
});

test('a grant still reaches a tenant once it is disabled (its bets still settle); its own client is refused', async () => {
  const d = await backofficeClient(ctx);
  const betsD = await insertBulkBets(ctx.db.pool, { tenantId: d.tenantId, count: 2 });
  const e = await backofficeClient(ctx);
  await ctx.services.tenants.grantTenants(e.clientId, [d.tenantId]);
  await ctx.services.tenants.disableTenant(d.tenantId);
  afterClientCache();
  const read = await getBets(e, { ids: [d.tenantId] });
  assert.deepEqual(read.body.data!.getBets.bets.map((x: { id: string }) => x.id).sort(), [...betsD].sort(), read.res.body);
  const cancelled = await post(ctx, e.headers, CANCEL, { bet: { id: betsD[0], tenant_id: d.tenantId } }, 'CancelBet');
  // These bets were written without wallet calls: the cancel got past the grant to the bet itself.
  assert.deepEqual(codes(cancelled.body), ['WALLET_NO_RESERVATION'], cancelled.res.body);
  const own = await getBets(d, { ids: [d.tenantId] });
  assert.equal(own.res.statusCode, 401, own.res.body);
  assert.deepEqual(codes(own.body), ['UNAUTHENTICATED']);
});
