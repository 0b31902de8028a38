// tenant list | show | disable and token through the real bin/wagerline: the JSON they print, and
// what a disabled tenant's clients are refused (tokens at the token service).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodeJwt } from 'jose';
import { cliChecks, cliEnv, runCli } from '../../../test/helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';

let db: TestDatabase;
let env: Record<string, string>;

before(async () => {
  db = await freshDatabase();
  env = cliEnv(db.url);
});
after(() => db.drop());

const { ok, refused } = cliChecks(() => env);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('tenant list: every tenant, oldest first, with created_at and disabled', async () => {
  const a = await ok(['tenant', 'create', '--name', 'Alpha Bet']);
  const b = await ok(['tenant', 'create', '--name', 'Beta Bet', '--currency', 'NZD', '--timezone', 'Pacific/Auckland']);
  const { tenants } = await ok(['tenant', 'list']);
  const mine = tenants.filter((t: { tenant_id: string }) => [a.tenant_id, b.tenant_id].includes(t.tenant_id));
  assert.equal(mine.length, 2);
  assert.deepEqual(mine.map((t: Record<string, unknown>) => ({ ...t, created_at: 'x' })), [
    { tenant_id: a.tenant_id, name: 'Alpha Bet', currency: 'AUD', timezone: 'Australia/Sydney', created_at: 'x', disabled: false, disabled_at: null },
    { tenant_id: b.tenant_id, name: 'Beta Bet', currency: 'NZD', timezone: 'Pacific/Auckland', created_at: 'x', disabled: false, disabled_at: null },
  ]);
  assert.ok(mine.every((t: { created_at: string }) => ISO.test(t.created_at)));
  // A track owner's report client: the venues whose meetings it sees (docs/reports.md).
  const track = await ok(['client', 'create', '--tenant', a.tenant_id, '--scopes', 'report', '--venues', 'VIC:Flemington,vic:Caulfield:t']);
  assert.deepEqual([track.venues, track.jurisdictions], [['VIC:Flemington', 'VIC:Caulfield:T'], []]);
});

test('tenant show: nothing configured, then clients, wallet, user auth and limits, never a secret', async () => {
  const t = await ok(['tenant', 'create', '--name', 'Show Bet']);
  const bare = await ok(['tenant', 'show', t.tenant_id]);
  assert.deepEqual(bare, {
    tenant: { ...t, created_at: bare.tenant.created_at, disabled: false, disabled_at: null },
    clients: [], wallet: null, user_auth: null, limits: null,
  });

  const client = await ok(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'upload,admin', '--agencies', 'TAB', '--name', 'feed']);
  const wallet = await ok(['tenant', 'set-wallet', t.tenant_id, '--url', 'http://127.0.0.1:9/api', '--auth', 'api_key',
    '--api-key', 'k-very-secret-key', '--signing-secret', 'sign-very-secret-value', '--no-verify']);
  assert.equal(wallet.private_network, true, 'an IP address the platform gives is taken as written');
  const auth = await ok(['tenant', 'set-auth', t.tenant_id, '--mode', 'custom']);
  const limits = await ok(['tenant', 'set-limits', t.tenant_id, '--max-stake', '500']);
  // A limit that is not an amount is a usage error (exit 2), told before the database is opened.
  for (const bad of ['0', 'abc', '12.505']) {
    const res = await runCli(['tenant', 'set-limits', t.tenant_id, '--max-payout', bad], env);
    assert.deepEqual([res.code, res.stdout], [2, ''], res.stderr);
    assert.match(res.stderr, /--max-payout.*must be an amount in dollars above 0/);
  }
  const full = await ok(['tenant', 'show', t.tenant_id]);
  const { client_secret: _secret, ...clientView } = client;
  assert.deepEqual(full.clients, [clientView]);
  const { verified: _verified, ...walletView } = wallet;
  assert.deepEqual(full.wallet, walletView);
  assert.deepEqual(full.user_auth, auth);
  assert.deepEqual(full.limits, limits);
  const text = JSON.stringify(full);
  for (const secret of [client.client_secret, 'k-very-secret-key', 'sign-very-secret-value']) assert.ok(!text.includes(secret), 'no secret shown');
  assert.ok(!/secret_hash|_enc"/.test(text));

  await refused(['tenant', 'set-wallet', t.tenant_id, '--url', 'http://127.0.0.1:9/other', '--auth', 'api_key', '--api-key', 'k', '--no-verify',
    '--no-private-network'], /--url leads to 127\.0\.0\.1, which is not a public address/);
  // An API key that cannot be a header value is refused, even unverified (every call would fail).
  for (const key of ['clé-secrète', ' padded ', 'two\nlines']) {
    await refused(['tenant', 'set-wallet', t.tenant_id, '--url', 'http://127.0.0.1:9/other', '--auth', 'api_key', '--api-key', key, '--no-verify'],
      /--api-key must be printable ASCII/);
  }
  // A host name (not an IP address) needs the platform's word.
  const byName = ['tenant', 'set-auth', t.tenant_id, '--mode', 'jwt', '--jwks-url', 'http://localhost:9/jwks.json', '--client-id', 'web'];
  await refused(byName, /--jwks-url leads to localhost, which resolves to an address that is not public; .+--private-network/);
  assert.deepEqual(await ok(['tenant', 'show', t.tenant_id]), full, 'the refused commands changed nothing');
  assert.equal((await ok([...byName, '--private-network'])).private_network, true);
  await refused(['tenant', 'show', '00000000-0000-4000-8000-000000000000'], /no tenant with id/);
  await refused(['tenant', 'show', 'nope'], /'nope' is invalid for argument 'tenant_id': must be a UUID/);
});

test('tenant disable: shown as disabled, idempotent, and its clients get no tokens', async () => {
  const t = await ok(['tenant', 'create', '--name', 'Gone Bet']);
  const client = await ok(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'upload', '--agencies', 'TAB']);
  const before = await ok(['token', '--client-id', client.client_id, '--client-secret', client.client_secret]);
  assert.equal(before.token_type, 'Bearer');

  const first = await ok(['tenant', 'disable', t.tenant_id]);
  assert.equal(first.disabled, true);
  assert.equal(first.changed, true);
  assert.match(first.disabled_at, ISO);
  const again = await ok(['tenant', 'disable', t.tenant_id]);
  assert.deepEqual(again, { ...first, changed: false }, 'a second disable changes nothing, not even disabled_at');

  const shown = await ok(['tenant', 'show', t.tenant_id]);
  assert.equal(shown.tenant.disabled, true);
  assert.equal(shown.tenant.disabled_at, first.disabled_at);
  const listed = (await ok(['tenant', 'list'])).tenants.find((x: { tenant_id: string }) => x.tenant_id === t.tenant_id);
  assert.equal(listed.disabled, true);

  await refused(['token', '--client-id', client.client_id, '--client-secret', client.client_secret], /invalid_client/);
  await refused(['tenant', 'disable', '00000000-0000-4000-8000-000000000000'], /no tenant with id/);
});

test('client create: the upload scope needs --agencies, and --agencies the upload scope; nothing is stored otherwise', async () => {
  const t = await ok(['tenant', 'create', '--name', 'Agency Bet']);
  await refused(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'upload,report'], /agencies must name at least one source code for an upload client/);
  assert.deepEqual((await ok(['tenant', 'show', t.tenant_id])).clients, [], 'nothing created');
  const client = await ok(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'upload', '--agencies', 'tab,xbet']);
  assert.deepEqual(client.agencies, ['TAB', 'XBET']);
  assert.deepEqual((await ok(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'report'])).agencies, []);
  await refused(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'report', '--agencies', 'TAB'], /agencies are for upload clients: add "upload" to the scopes/);
  assert.equal((await ok(['tenant', 'show', t.tenant_id])).clients.length, 2, 'the refused client is not stored');
});

test('token: prints a token for the client\'s scopes, or the subset asked for; wrong secrets and scopes refused', async () => {
  const t = await ok(['tenant', 'create', '--name', 'Token Bet']);
  const client = await ok(['client', 'create', '--tenant', t.tenant_id, '--scopes', 'upload,report,admin', '--agencies', 'TAB']);
  const all = await ok(['token', '--client-id', client.client_id, '--client-secret', client.client_secret]);
  assert.deepEqual(Object.keys(all).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  assert.equal(all.token_type, 'Bearer');
  assert.equal(all.scope, 'upload report admin');
  assert.equal(all.expires_in, 3600);
  const claims = decodeJwt(all.access_token);
  assert.equal(claims.client_id, client.client_id);
  assert.equal(claims.tenant_id, t.tenant_id);

  const some = await ok(['token', '--client-id', client.client_id, '--client-secret', client.client_secret, '--scope', 'admin']);
  assert.equal(some.scope, 'admin');
  assert.equal(decodeJwt(some.access_token).scope, 'admin');
  assert.equal((await ok(['token', '--client-id', client.client_id, '--client-secret', client.client_secret, '--scope', 'upload,report'])).scope, 'upload report');

  await refused(['token', '--client-id', client.client_id, '--client-secret', 'wrong'], /invalid_client/);
  await refused(['token', '--client-id', 'wl_nobody', '--client-secret', 'wrong'], /invalid_client/);
  await refused(['token', '--client-id', client.client_id, '--client-secret', client.client_secret, '--scope', 'backoffice'], /invalid_scope/);
  await refused(['token', '--client-id', client.client_id], /--client-secret/);
  // The secret may come from the environment, out of sight of ps.
  const fromEnv = await runCli(['token', '--client-id', client.client_id], { ...env, WAGERLINE_CLIENT_SECRET: client.client_secret });
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.equal(fromEnv.json().token_type, 'Bearer');
  // Both, as `upload` takes them.
  const bothFromEnv = await runCli(['token'], { ...env, WAGERLINE_CLIENT_ID: client.client_id, WAGERLINE_CLIENT_SECRET: client.client_secret });
  assert.equal(bothFromEnv.code, 0, bothFromEnv.stderr);
  assert.equal(decodeJwt(bothFromEnv.json().access_token).client_id, client.client_id);
});
