// A back-office subscription ends when its client is revoked or its tenant disabled (docs/auth.md:
// their tokens stop working everywhere), or a tenant it follows is no longer granted: at its next
// update, nothing more is delivered and it completes. A client still active keeps receiving.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { ensureSigningKey } from '../src/modules/auth/signing-keys.ts';
import { BET_UPDATES_CHANNEL } from '../src/modules/betting/betting.queries.ts';
import type { Services } from '../src/services.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';

let db: TestDatabase;
let services: Services;
before(async () => {
  db = await freshDatabase();
  const box = createSecretBox(randomBytes(32));
  // No client cache: a revocation is seen by the next lookup (with the default 5 s, within 5 s).
  services = testServices(db, box, { listenUrl: db.url, settings: { WAGERLINE_BACKOFFICE_CLIENT_CACHE_SECONDS: 0 } });
  await ensureSigningKey(db.pool, box);
  await services.tokens.refresh();
});
after(async () => {
  await services.close();
  await db.drop();
});

/** A back-office client of a new tenant, identified as a request would be, and its subscription. */
async function subscribed() {
  const tenant = await services.tenants.createTenant({ name: `Office ${randomUUID().slice(0, 8)}` });
  const client = await services.tenants.createClient({ tenantId: tenant.tenant_id, scopes: ['backoffice'] });
  const { access_token } = await services.tokens.grant(client.client_id, client.client_secret);
  const caller = await services.backoffice.identify({ apiKey: client.client_id, authorization: `Bearer ${access_token}` });
  return { tenantId: tenant.tenant_id, clientId: client.client_id, secret: client.client_secret, updates: await services.backoffice.betUpdates(caller, null) };
}

const announce = (tenantId: string) => db.pool.query('SELECT pg_notify($1, $2)', [BET_UPDATES_CHANNEL,
  JSON.stringify({ tenant_id: tenantId, bet_id: randomUUID(), user_id: randomUUID(), status: 'settled' })]);

/** The next item of `updates`, or 'nothing' when none comes within 3 s. */
const nextOf = (updates: AsyncIterableIterator<unknown>) =>
  Promise.race([updates.next(), new Promise((resolve) => setTimeout(() => resolve('nothing'), 3000))]);

test('an active client receives; once revoked, its subscription completes at the next update', async () => {
  const sub = await subscribed();
  let next = nextOf(sub.updates);
  await announce(sub.tenantId);
  const first = await next as IteratorResult<{ tenant_id: string }>;
  assert.deepEqual([first.done, first.value.tenant_id], [false, sub.tenantId]);
  await services.tenants.revokeClient(sub.clientId);
  next = nextOf(sub.updates);
  await announce(sub.tenantId);
  assert.deepEqual(await next, { done: true, value: undefined });
});

test('a grant withdrawn ends a subscription to that tenant\'s bets at the next update: no bet of it is delivered after', async () => {
  const sub = await subscribed();
  const brand = (await services.tenants.createTenant({ name: `Brand ${randomUUID().slice(0, 8)}` })).tenant_id;
  await services.tenants.grantTenants(sub.clientId, [brand]);
  const tokens = await services.tokens.grant(sub.clientId, sub.secret);
  const caller = await services.backoffice.identify({ apiKey: sub.clientId, authorization: `Bearer ${tokens.access_token}` });
  const both = await services.backoffice.betUpdates(caller, null);
  let next = nextOf(both);
  await announce(brand);
  assert.equal(((await next) as IteratorResult<{ tenant_id: string }>).value.tenant_id, brand, 'granted: delivered');
  await services.tenants.grantTenants(sub.clientId, []);
  next = nextOf(both);
  await announce(brand);
  assert.deepEqual(await next, { done: true, value: undefined });
});

test('a disabled tenant\'s subscription completes at the next update', async () => {
  const sub = await subscribed();
  await services.tenants.disableTenant(sub.tenantId);
  const next = nextOf(sub.updates);
  await announce(sub.tenantId);
  assert.deepEqual(await next, { done: true, value: undefined });
});
