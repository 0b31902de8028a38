// The back-office client named by x-api-key is kept for WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS:
// a revoked client, a disabled tenant or a withdrawn grant keeps its access that long and no
// longer; with 0, at once. Time is the app's clock, moved by hand.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { backofficeClient, codes, GET_BETS, post, type BackofficeClient } from './helpers/backoffice.ts';

const TTL_MS = 5_000;
let ctx: TestContext;
let uncached: TestContext;
before(async () => {
  ctx = await createTestApp({ WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS: String(TTL_MS / 1000) });
  uncached = await createTestApp({ WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS: '0' });
});
after(async () => {
  await ctx.close();
  await uncached.close();
});

/** What `{ __typename }` (the key alone, no token) gets: "ok" or the refusal's reason. */
async function keyCheck(on: TestContext, client: BackofficeClient): Promise<unknown> {
  const { res, body } = await post(on, { 'x-api-key': client.clientId }, '{ __typename }');
  return res.statusCode === 200 ? 'ok' : body.errors![0]!.extensions.reason;
}

test('a revoked client keeps the back-office for the cache time, then is refused', async () => {
  const client = await backofficeClient(ctx);
  assert.equal(await keyCheck(ctx, client), 'ok');
  await ctx.tenants.revokeClient(client.clientId);
  ctx.clock.advance(TTL_MS - 1);
  assert.equal(await keyCheck(ctx, client), 'ok', 'within the cache time');
  ctx.clock.advance(1);
  assert.equal(await keyCheck(ctx, client), 'api_key_unknown');
  ctx.clock.advance(TTL_MS);
  assert.equal(await keyCheck(ctx, client), 'api_key_unknown', 'a key found no more is not kept');
});

test('a disabled tenant\'s client is refused once the cache time has passed', async () => {
  const client = await backofficeClient(ctx);
  assert.equal(await keyCheck(ctx, client), 'ok');
  await ctx.tenants.disableTenant(client.tenantId);
  ctx.clock.advance(TTL_MS);
  assert.equal(await keyCheck(ctx, client), 'api_key_unknown');
});

test('a withdrawn grant stops showing the tenant once the cache time has passed', async () => {
  const [a, b] = [await backofficeClient(ctx), await backofficeClient(ctx)];
  await ctx.tenants.grantTenants(a.clientId, [b.tenantId]);
  const getB = async () => codes((await post(ctx, a.headers, GET_BETS, { input: { tenant: { ids: [b.tenantId] } } })).body);
  assert.deepEqual(await getB(), []);
  await ctx.tenants.grantTenants(a.clientId, []);
  assert.deepEqual(await getB(), [], 'within the cache time');
  ctx.clock.advance(TTL_MS);
  assert.deepEqual(await getB(), ['FORBIDDEN']);
});

test('with WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS=0 a revocation is seen at once', async () => {
  const client = await backofficeClient(uncached);
  assert.equal(await keyCheck(uncached, client), 'ok');
  await uncached.tenants.revokeClient(client.clientId);
  assert.equal(await keyCheck(uncached, client), 'api_key_unknown');
});
