// A disabled tenant over HTTP: its client is refused at /oauth/token, a token issued before is
// refused on an upload route once the process has refreshed, and its frontend users are refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { createTestApp, seedClient, testServices, type TestContext } from './helpers/app.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

const upload = (auth: Record<string, string>) => ctx.app.inject({
  method: 'POST', url: '/public/uploadRaceV2', headers: auth, payload: { meeting_id: 1001, race_number: 1, bets: [] },
});

test('a disabled tenant\'s client gets no token, and its earlier token is refused on an upload route', async () => {
  const { tenant, client, auth } = await seedClient(ctx, { scopes: ['upload'] });
  const other = await seedClient(ctx, { scopes: ['upload'] });
  assert.notEqual((await upload(auth)).statusCode, 401, 'accepted before the tenant is disabled');

  await ctx.tenants.disableTenant(tenant.tenant_id);
  const token = await ctx.app.inject({
    method: 'POST', url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  assert.equal(token.statusCode, 401);
  assert.equal(token.json().error, 'invalid_client');

  await ctx.tokens.refresh();
  const res = await upload(auth);
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().code, 'invalid_token');
  assert.match(res.json().detail, /revoked/);
  assert.notEqual((await upload(other.auth)).statusCode, 401, 'another tenant\'s client is untouched');
});

test('a disabled tenant\'s frontend users are refused', async () => {
  const tenant = await ctx.tenants.createTenant({ name: 'Frontend Bet' });
  await ctx.services.users.setAuth(tenant.tenant_id, { mode: 'custom' });
  const headers = {
    authorization: 'Bearer opaque-user-token',
    'x-tenant-id': tenant.tenant_id,
    'x-host-state-user': JSON.stringify({ userId: '3f1c2a9e-0000-4000-8000-000000000001', brandName: 'Frontend Bet', brandUserId: 'u1', data: '{}' }),
  };
  const user = await ctx.services.users.authenticate(headers);
  assert.equal(user.tenantId, tenant.tenant_id);

  await ctx.tenants.disableTenant(tenant.tenant_id);
  // A fresh service: the configuration cache of a process lasts configTtlMs (5 s) at most.
  const fresh = testServices(ctx.db, ctx.box);
  try {
    await assert.rejects(fresh.users.authenticate(headers), (error: unknown) =>
      error instanceof AppError && error.code === 'user_unauthenticated' && /disabled/.test(error.message));
  } finally {
    await fresh.close();
  }
});
