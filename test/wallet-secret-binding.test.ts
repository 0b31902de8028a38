// A tenant's sealed wallet secrets are bound to their tenant, their column and the wallet's URL: a
// database writer who copies one tenant's sealed secret into another tenant's row, or points a row
// at another URL, gets nothing opened and nothing sent. Real PostgreSQL; no wallet is contacted.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { rebindWalletSecrets } from '../src/modules/wallet/config/rebind-secrets.ts';
import { loadEndpoint } from '../src/modules/wallet/config/wallet-config.service.ts';
import type { Services } from '../src/services.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';

const box = createSecretBox(randomBytes(32));
let db: TestDatabase;
let services: Services;
before(async () => {
  db = await freshDatabase();
  services = testServices(db, box);
});
after(() => db.drop());

/** A tenant with a wallet (never contacted: verify is off), its credentials as given. */
async function tenantWithWallet(name: string, secrets: { clientSecret: string; signingSecret: string }) {
  const tenant = await services.tenants.createTenant({ name });
  await services.wallet.setWallet({
    tenantId: tenant.tenant_id, url: `http://127.0.0.1:9/${name}`, auth: 'client_credentials', clientId: `${name}-id`, ...secrets,
  });
  return tenant.tenant_id;
}

const row = async (tenantId: string) =>
  (await db.pool.query('SELECT * FROM wallet_configs WHERE tenant_id = $1', [tenantId])).rows[0];

test('another tenant\'s sealed client secret copied into a row is not opened, so never sent to that row\'s wallet', async () => {
  const a = await tenantWithWallet('brand-a', { clientSecret: 'secret-of-a-0123456789', signingSecret: 'signing-of-a-0123456789' });
  const b = await tenantWithWallet('brand-b', { clientSecret: 'secret-of-b-0123456789', signingSecret: 'signing-of-b-0123456789' });
  assert.equal((await loadEndpoint(db.pool, box, b)).auth.kind, 'client_credentials');
  await db.pool.query('UPDATE wallet_configs SET client_secret_enc = $2 WHERE tenant_id = $1', [b, (await row(a)).client_secret_enc]);
  await assert.rejects(loadEndpoint(db.pool, box, b), /cannot be opened/);
});

test('a sealed secret moved to another column of its own row is not opened', async () => {
  const c = await tenantWithWallet('brand-c', { clientSecret: 'secret-of-c-0123456789', signingSecret: 'signing-of-c-0123456789' });
  await db.pool.query('UPDATE wallet_configs SET signing_secret_enc = client_secret_enc WHERE tenant_id = $1', [c]);
  await assert.rejects(loadEndpoint(db.pool, box, c), /cannot be opened/);
});

test('a row pointed at another URL does not open its secrets there', async () => {
  const d = await tenantWithWallet('brand-d', { clientSecret: 'secret-of-d-0123456789', signingSecret: 'signing-of-d-0123456789' });
  await db.pool.query('UPDATE wallet_configs SET url = $2 WHERE tenant_id = $1', [d, 'https://collector.example.net']);
  await assert.rejects(loadEndpoint(db.pool, box, d), /cannot be opened/);
});

test('secrets sealed before the binding are bound once, where they are, and stay readable; one unbound after that is refused', async () => {
  const e = await tenantWithWallet('brand-e', { clientSecret: 'secret-of-e-0123456789', signingSecret: 'signing-of-e-0123456789' });
  const f = await tenantWithWallet('brand-f', { clientSecret: 'secret-of-f-0123456789', signingSecret: 'signing-of-f-0123456789' });
  // As the earlier version stored them: sealed without a binding ("v1.").
  const legacy = async (tenantId: string, secrets: [string, string]) => db.pool.query(
    'UPDATE wallet_configs SET client_secret_enc = $2, signing_secret_enc = $3 WHERE tenant_id = $1', [tenantId, box.seal(secrets[0]), box.seal(secrets[1])]);
  await legacy(e, ['secret-of-e-0123456789', 'signing-of-e-0123456789']);
  await assert.rejects(loadEndpoint(db.pool, box, e), /cannot be opened/, 'an unbound value is not opened as a bound one');

  // Two processes starting at once: the secrets are rebound by one of them, once.
  const runs = await Promise.all([rebindWalletSecrets(db.pool, box), rebindWalletSecrets(db.pool, box)]);
  assert.deepEqual(runs.map((r) => r.rebound).sort(), [0, 2]);
  const opened = await loadEndpoint(db.pool, box, e);
  assert.deepEqual([opened.auth, opened.signingSecret],
    [{ kind: 'client_credentials', clientId: 'brand-e-id', clientSecret: 'secret-of-e-0123456789' }, 'signing-of-e-0123456789']);
  assert.match((await row(e)).client_secret_enc, /^v2\./);
  assert.equal((await loadEndpoint(db.pool, box, f)).signingSecret, 'signing-of-f-0123456789', 'a row bound already is left as it is');

  // Later, an unbound value written into a row (e.g. one kept from before) is never rebound there.
  await legacy(f, ['secret-of-e-0123456789', 'signing-of-e-0123456789']);
  assert.equal((await rebindWalletSecrets(db.pool, box)).rebound, 0);
  await assert.rejects(loadEndpoint(db.pool, box, f), /cannot be opened/);
});
