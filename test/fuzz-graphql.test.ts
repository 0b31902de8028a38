// Fuzzing POST /graphql (bet placement) with mutated inputs, hostile values, broken queries and
// broken headers. Every answer is a GraphQL answer, never a 5xx; every error carries a stable
// extensions.code; a refused placement stores no bet and asks the wallet for nothing. Replay a
// failure with FUZZ_SEED (test/helpers/fuzz.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { fuzzRuns, hostileValue, nastyString, okShare } from './helpers/fuzz.ts';
import { TestJwks } from './helpers/jwks.ts';
import { CLIENT } from './wallet-fixtures.ts';

const MEETING = 660001;
let ctx: TestContext;
let sandbox: WalletSandbox;
let jwks: TestJwks;
let tenantId: string;
let token: string;

before(async () => {
  ctx = await createTestApp();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, openingBalance: '1000000' });
  jwks = await TestJwks.start();
  tenantId = (await ctx.tenants.createTenant({ name: 'Fuzz' })).tenant_id;
  await ctx.services.wallet.setWallet({ tenantId, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await ctx.services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: jwks.url, clientId: jwks.clientId });
  await ctx.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Sandown', jurisdiction: 'VIC', code: 'T',
    pools: [{ product: 'dailydouble', races: [1, 2] }],
    races: [1, 2].map((r) => ({ race_number: r, start_time: new Date(Date.now() + r * 3600_000).toISOString(),
      products: ['win', 'place', 'exacta', 'trifecta'], runners: [1, 2, 3, 4, 5].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) })),
  });
  token = await jwks.token(randomUUID());
});

after(async () => {
  await ctx.close();
  await sandbox.close();
  await jwks.close();
});

const PLACE = 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status stake acceptedStake percentage combinations reason } }';
const valid = () => ({ idempotencyKey: randomUUID(), type: 'WIN', stake: 2, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[3]], price: 5 }] });

/** A valid input with one part replaced by something else: a hostile value, or a plausible wrong one. */
const mutated = fc.record({
  field: fc.constantFrom('idempotencyKey', 'type', 'stake', 'legs', 'boxed', 'bonus', 'meetingId', 'raceNumber', 'selections', 'price', 'none'),
  value: fc.oneof(hostileValue, fc.constantFrom('WIN', 'QUADDIE', 'EXACTA', 0, -1, 1.005, 1e308, [[1, 1]], [[]], [], [[99]], 3, 'x'.repeat(200))),
}).map(({ field, value }) => {
  const input: Record<string, unknown> = valid();
  const leg = (input.legs as Array<Record<string, unknown>>)[0]!;
  if (field in leg) leg[field] = value;
  else if (field !== 'none') input[field] = value;
  return input;
});

async function post(body: unknown, headers: Record<string, string>) {
  return ctx.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
}

async function betCount(): Promise<number> {
  return (await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bets')).rows[0]!.n;
}

test('fuzz: mutated placements answer with a bet or coded errors, never a 5xx, and a refusal stores nothing', async () => {
  const share = okShare(0.05);
  await fc.assert(fc.asyncProperty(mutated, async (input) => {
    const before = await betCount();
    const reserves = sandbox.requests().length;
    const res = await post({ query: PLACE, variables: { input } }, { 'x-tenant-id': tenantId, authorization: `Bearer ${token}` });
    assert.ok(res.statusCode < 500, `answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    const body = res.json() as { data?: { placeBet?: unknown } | null; errors?: Array<{ extensions?: { code?: unknown } }> };
    share.count(body.data?.placeBet ? 200 : 400);
    if (body.data?.placeBet) return;
    assert.ok(body.errors?.length, res.body.slice(0, 300));
    for (const e of body.errors!) assert.equal(typeof e.extensions?.code, 'string', `an error without a code: ${JSON.stringify(e).slice(0, 200)}`);
    assert.ok(!body.errors!.some((e) => e.extensions!.code === 'INTERNAL_SERVER_ERROR'), res.body.slice(0, 300));
    assert.equal(await betCount(), before, 'a refused placement stored a bet');
    assert.equal(sandbox.requests().length, reserves, 'a refused placement called the wallet');
  }), fuzzRuns(150));
  share.check();
});

test('fuzz: broken queries, bodies and headers are refused with a code, never a 5xx', async () => {
  const headers = fc.record({
    'x-tenant-id': fc.oneof(fc.constant('TENANT'), nastyString(40).map((s) => s.replace(/[^\x20-\x7e]/g, ''))),
    authorization: fc.oneof(fc.constant('TOKEN'), fc.constant('Bearer '), nastyString(60).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`)),
  }).map((h) => ({ 'x-tenant-id': h['x-tenant-id'] === 'TENANT' ? tenantId : h['x-tenant-id'], authorization: h.authorization === 'TOKEN' ? `Bearer ${token}` : h.authorization }));
  const query = fc.oneof(fc.constant(PLACE), fc.constant('{ myBets(first: 5) { bets { id } hasMore endCursor } }'),
    nastyString(80), fc.constant('{ myBets(first: 1000) { hasMore } }'), fc.constant('{ myBets(after: "x") { hasMore } }'),
    fc.constant('{ bet(id: "not-a-uuid") { id } }'), fc.constant('{ __schema { types { name } } }'));
  await fc.assert(fc.asyncProperty(query, headers, fc.oneof(mutated, hostileValue), async (q, h, input) => {
    const before = await betCount();
    const res = await post({ query: q, variables: { input } }, h);
    assert.ok(res.statusCode < 500, `answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    const body = res.json() as { data?: unknown; errors?: Array<{ extensions?: { code?: unknown } }> };
    for (const e of body.errors ?? []) assert.equal(typeof e.extensions?.code, 'string', `an error without a code: ${JSON.stringify(e).slice(0, 200)}`);
    if (body.errors?.length && h.authorization !== `Bearer ${token}`) assert.equal(await betCount(), before);
  }), fuzzRuns(150));
});

test('a query that is JSON text is refused as not a GraphQL document (it was an executor crash)', async () => {
  for (const query of ['0', '"x"', '{"kind":"Document","definitions":[]}', '[]', 'null']) {
    const res = await post({ query }, {});
    assert.equal(res.statusCode, 400, query);
    const body = res.json() as { errors: Array<{ message: string; extensions: { code: string } }> };
    assert.deepEqual(body.errors.map((e) => [e.extensions.code, e.message]), [['BAD_REQUEST', 'query is not a GraphQL document']], query);
  }
});
