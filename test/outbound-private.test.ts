// A tenant's URLs and private addresses (docs/admin-api.md, "Private addresses"): a wallet or JWKS URL a
// tenant's own admin token set must lead to public addresses, when saved and at every connection;
// one the platform set may lead anywhere. Real sandbox wallet, real JWKS server, real database.
// A "rebinding" is played by pointing a stored configuration at `localhost` (a name resolving to
// a private address), as a tenant's DNS answer changed after the save would.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { walletBinding } from '../src/modules/wallet/config/wallet-config.service.ts';
import { testServices } from './helpers/app.ts';
import { TestJwks } from './helpers/jwks.ts';
import { CLIENT, credit, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
let jwks: TestJwks;
before(async () => {
  f = await walletFixture();
  jwks = await TestJwks.start('frontend-private');
});
after(async () => {
  await jwks.close();
  await f.close();
});

const localhost = (url: string) => url.replace('127.0.0.1', 'localhost');
const sentTo = (betId: string) => f.sandbox.requests().filter((r) => (r.body as { betId?: string } | undefined)?.betId === betId);

/**
 * Points the stored wallet configuration at `url`, as the tenant (false) or the platform (true)
 * wrote it: its secret sealed again for that URL, as every save seals it (wallet-config.service.ts).
 */
async function storedWallet(url: string, privateNetwork: boolean): Promise<void> {
  const secret = f.box.seal(CLIENT.clientSecret, walletBinding(f.tenantId, 'client_secret_enc', url));
  await f.db.pool.query('UPDATE wallet_configs SET url = $2, private_network = $3, client_secret_enc = $4, updated_at = clock_timestamp() WHERE tenant_id = $1',
    [f.tenantId, url, privateNetwork, secret]);
}

test('a wallet whose name now resolves to a private address is never called; the attempt says why (not where) and counts as not sent', async () => {
  try {
    await storedWallet(localhost(f.sandbox.url), false);
    const refused = credit();
    const [call] = await f.enqueue(refused);
    await f.worker.drain();
    const [attempt] = await f.attempts(call!.transactionId);
    assert.match(String(attempt?.error), /^EPRIVATEADDRESS: localhost resolves to an address that is not public; this URL may only lead to public addresses$/);
    assert.equal(attempt?.http_status, null);
    assert.equal(sentTo(refused.betId).length, 0, 'the sandbox saw nothing of it');

    // The same URL with the platform's --private-network is called: only the guard kept the first one away.
    await storedWallet(localhost(f.sandbox.url), true);
    const allowed = await f.creditOfTakenBet();
    await f.enqueue(allowed);
    await f.worker.drain();
    assert.deepEqual(sentTo(allowed.betId).map((r) => [r.op, r.status]), [['credit', 200]]);
  } finally {
    await storedWallet(f.sandbox.url, true);
  }
});

test('set-wallet for a tenant\'s admin: a private URL is refused (private_address) and nothing is saved; WAGERLINE_PRIVATE_NETWORK=any lets it through', async () => {
  const before = await f.wallet.getWallet(f.tenantId);
  const input = { tenantId: f.tenantId, url: f.sandbox.url, auth: 'client_credentials' as const, ...CLIENT, privateNetwork: false };
  await assert.rejects(f.wallet.setWallet(input), (e: unknown) =>
    e instanceof AppError && e.code === 'private_address' && /^--url leads to 127\.0\.0\.1, which is not a public address/.test(e.message));
  assert.deepEqual(await f.wallet.getWallet(f.tenantId), before);
  assert.equal(before?.private_network, true);

  const anyAddress = testServices(f.db, f.box, { settings: { ...f.settings, WAGERLINE_PRIVATE_NETWORK: 'any' } });
  try {
    const saved = await anyAddress.wallet.setWallet({ ...input, url: localhost(f.sandbox.url), verify: true });
    assert.match(String(saved.verified), /issued a token/, 'the check reached the wallet');
    assert.equal(saved.private_network, false, 'stored as the tenant wrote it: restricted again if the policy changes');
  } finally {
    await anyAddress.close();
    await storedWallet(f.sandbox.url, true);
  }
});

test('a tenant-set JWKS URL leading to a private address is never fetched: its users get 503 user_auth_unavailable', async () => {
  const services = testServices(f.db, f.box, { userAuth: { configTtlMs: 0, jwksTimeoutMs: 1000 } });
  try {
    const tenantId = (await services.tenants.createTenant({ name: 'Private JWKS' })).tenant_id;
    await assert.rejects(services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: jwks.url, clientId: jwks.clientId, privateNetwork: false }),
      (e: unknown) => e instanceof AppError && e.code === 'private_address' && e.message.startsWith('--jwks-url leads to 127.0.0.1'));
    assert.equal(await services.users.getAuth(tenantId), null, 'nothing saved');

    // A host name the platform gave without its word must resolve to public addresses too.
    await assert.rejects(services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: localhost(jwks.url), clientId: jwks.clientId }),
      (e: unknown) => e instanceof AppError && e.code === 'private_address' && e.message.startsWith('--jwks-url leads to localhost, which resolves to'));
    const saved = await services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: localhost(jwks.url), clientId: jwks.clientId, privateNetwork: true });
    assert.equal(saved.private_network, true);
    await f.db.pool.query('UPDATE user_auth_configs SET private_network = false, updated_at = clock_timestamp() WHERE tenant_id = $1', [tenantId]);
    const headers = { authorization: `Bearer ${await jwks.token(randomUUID())}`, 'x-tenant-id': tenantId };
    await assert.rejects(services.users.authenticate(headers), (e: unknown) => e instanceof AppError && e.code === 'user_auth_unavailable');
    assert.equal(jwks.fetches, 0);

    await f.db.pool.query('UPDATE user_auth_configs SET private_network = true, updated_at = clock_timestamp() WHERE tenant_id = $1', [tenantId]);
    const user = await services.users.authenticate(headers);
    assert.equal(user.tenantId, tenantId);
    assert.equal(jwks.fetches, 1, 'the platform\'s configuration fetches it');
  } finally {
    await services.close();
  }
});

test('WAGERLINE_PRIVATE_NETWORK=any: a tenant-set JWKS on a private address is saved and fetched', async () => {
  const services = testServices(f.db, f.box, { settings: { WAGERLINE_PRIVATE_NETWORK: 'any' }, userAuth: { configTtlMs: 0, jwksTimeoutMs: 1000 } });
  try {
    const tenantId = (await services.tenants.createTenant({ name: 'Any JWKS' })).tenant_id;
    const saved = await services.users.setAuth(tenantId, { mode: 'jwt', jwksUrl: localhost(jwks.url), clientId: jwks.clientId, privateNetwork: false });
    assert.equal(saved.private_network, false);
    const fetches = jwks.fetches;
    const user = await services.users.authenticate({ authorization: `Bearer ${await jwks.token(randomUUID())}`, 'x-tenant-id': tenantId });
    assert.equal(user.tenantId, tenantId);
    assert.equal(jwks.fetches, fetches + 1);
  } finally {
    await services.close();
  }
});
