// The admin API of a tenant (scope admin): each route's happy path, 401 / 403 / 400 / 404, a client
// acting on its own tenant only, and the same JSON as the CLI for tenant show and client list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { cliEnv, runCli } from '../../../test/helpers/cli.ts';

let ctx: TestContext;
let admin: Awaited<ReturnType<typeof seedClient>>;
let other: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  admin = await seedClient(ctx, { scopes: ['admin'] });
  other = await seedClient(ctx, { scopes: ['admin'] });
});
after(() => ctx.close());

type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, payload?: unknown, auth: Record<string, string> = admin.auth) =>
  ctx.app.inject({ method, url, headers: auth, ...(payload !== undefined && { payload: payload as object }) });
const T = () => `/admin/tenants/${admin.tenant.tenant_id}`;

test('every route: 401 without a token, 403 without the admin scope or for another tenant, 400 for a bad tenant id', async () => {
  const upload = await seedClient(ctx, { scopes: ['upload'], tenantId: admin.tenant.tenant_id });
  const routes: Array<[Method, string, unknown?]> = [
    ['GET', ''], ['POST', '/disable'], ['PUT', '/wallet', { url: 'http://127.0.0.1:9', auth: 'api_key', api_key: 'k', verify: false }],
    ['PUT', '/auth', { mode: 'custom' }], ['PUT', '/limits', {}], ['GET', '/clients'], ['POST', '/clients', { scopes: ['upload'] }],
    ['POST', `/clients/${admin.client.client_id}/rotate-secret`], ['POST', `/clients/${admin.client.client_id}/revoke`],
    ['PUT', '/timezone', { timezone: 'America/Regina' }],
  ];
  for (const [method, path, body] of routes) {
    const url = `${T()}${path}`;
    assert.equal((await call(method, url, body, {})).statusCode, 401, `${method} ${path}`);
    assert.equal((await call(method, url, body, upload.auth)).statusCode, 403, `${method} ${path}`);
    assert.equal((await call(method, url, body, other.auth)).statusCode, 403, `${method} ${path} of another tenant`);
    assert.equal((await call(method, `/admin/tenants/nope${path}`, body)).statusCode, 400, `${method} ${path} bad id`);
  }
});

test('tenant show and client list answer the same JSON as the CLI', async () => {
  await call('PUT', `${T()}/limits`, { max_stake: '250' });
  const show = await call('GET', T());
  assert.equal(show.statusCode, 200, show.body);
  const env = cliEnv(ctx.db.url);
  const cliShow = await runCli(['tenant', 'show', admin.tenant.tenant_id], env);
  assert.equal(cliShow.code, 0, cliShow.stderr);
  assert.deepEqual(show.json(), cliShow.json());
  const list = await call('GET', `${T()}/clients`);
  assert.equal(list.statusCode, 200);
  const cliList = await runCli(['client', 'list', '--tenant', admin.tenant.tenant_id], env);
  assert.deepEqual(list.json(), cliList.json());
  assert.equal(show.json().limits.max_stake, '250.00');
});

test('wallet, auth and limits: set, shown without secrets; bad bodies are 400', async () => {
  // A public address (the tenant's own token may set no other); never called: verify is off.
  const wallet = await call('PUT', `${T()}/wallet`, { url: 'http://93.184.215.14:9/api', auth: 'api_key', api_key: 'very-secret-key', verify: false });
  assert.equal(wallet.statusCode, 200, wallet.body);
  assert.equal(wallet.json().auth, 'api_key');
  assert.equal(wallet.json().private_network, false);
  assert.equal(wallet.json().api_key_header, 'x-api-key');
  assert.ok(!wallet.body.includes('very-secret-key'));
  const auth = await call('PUT', `${T()}/auth`, { mode: 'custom' });
  assert.equal(auth.statusCode, 200, auth.body);
  assert.equal(auth.json().mode, 'custom');
  const limits = await call('PUT', `${T()}/limits`, { max_payout: '10000', max_stake: null });
  assert.equal(limits.statusCode, 200, limits.body);
  assert.equal(limits.json().max_stake, null);
  const shown = (await call('GET', T())).json();
  assert.deepEqual(shown.user_auth, auth.json());
  assert.ok(!JSON.stringify(shown).includes('very-secret-key'));

  assert.equal((await call('PUT', `${T()}/wallet`, { url: 'ftp://x', auth: 'api_key', api_key: 'k', verify: false })).statusCode, 400);
  assert.equal((await call('PUT', `${T()}/wallet`, { url: 'http://x', auth: 'api_key', api_key: 'k', verify: false, extra: 1 })).statusCode, 400);
  assert.equal((await call('PUT', `${T()}/auth`, { mode: 'jwt' })).statusCode, 400);
  assert.equal((await call('PUT', `${T()}/limits`, { max_stake: 'lots' })).statusCode, 400);
});

test('private addresses: a tenant\'s own token may not aim its wallet or JWKS at one (400), nor allow it (403); a platform token may', async () => {
  const privateWallet = { url: 'http://127.0.0.1:9/api', auth: 'api_key', api_key: 'k', verify: false };
  const tenantWallet = await call('PUT', `${T()}/wallet`, privateWallet);
  assert.equal(tenantWallet.statusCode, 400, tenantWallet.body);
  assert.equal(tenantWallet.json().code, 'private_address');
  assert.match(tenantWallet.json().detail, /^url leads to 127\.0\.0\.1, which is not a public address; only the platform may allow/);
  const asked = await call('PUT', `${T()}/wallet`, { ...privateWallet, private_network: true });
  assert.equal(asked.statusCode, 403, asked.body);
  assert.match(asked.json().detail, /only the platform may let a tenant's URL lead to a private address/);
  const jwks = await call('PUT', `${T()}/auth`, { mode: 'jwt', jwks_url: 'http://localhost:9/jwks.json', client_id: 'web' });
  assert.equal(jwks.statusCode, 400, jwks.body);
  assert.equal(jwks.json().detail.split(';')[0], 'jwks_url leads to localhost, which resolves to an address that is not public',
    'the address a name resolves to is not shown: the platform\'s DNS is not the tenant\'s to map');

  const platform = await seedClient(ctx, { scopes: ['admin', 'platform'] });
  const byPlatform = await call('PUT', `${T()}/wallet`, privateWallet, platform.auth);
  assert.equal(byPlatform.statusCode, 200, byPlatform.body);
  assert.equal(byPlatform.json().private_network, true);
  const restricted = await call('PUT', `${T()}/wallet`, { ...privateWallet, private_network: false }, platform.auth);
  assert.equal(restricted.json().code, 'private_address', 'a platform token may restrict a tenant as its own token is');
  // A host name: the platform too must say private_network true (its owner could re-point it).
  const byName = { mode: 'jwt', jwks_url: 'http://localhost:9/jwks.json', client_id: 'web' };
  assert.equal((await call('PUT', `${T()}/auth`, byName, platform.auth)).json().code, 'private_address');
  const auth = await call('PUT', `${T()}/auth`, { ...byName, private_network: true }, platform.auth);
  assert.equal(auth.statusCode, 200, auth.body);
  assert.equal(auth.json().private_network, true);
  assert.equal((await call('GET', T())).json().wallet.url, 'http://127.0.0.1:9/api', 'the refused writes changed nothing');
});

test('clients: create, rotate-secret, revoke; a client of another tenant is a 404', async () => {
  const created = await call('POST', `${T()}/clients`, { scopes: ['upload'], agencies: ['TAB'], name: 'feed' });
  assert.equal(created.statusCode, 200, created.body);
  const c = created.json();
  assert.equal(c.tenant_id, admin.tenant.tenant_id);
  assert.equal(typeof c.client_secret, 'string');
  assert.equal((await call('POST', `${T()}/clients`, { scopes: ['root'] })).statusCode, 400);

  const rotated = await call('POST', `${T()}/clients/${c.client_id}/rotate-secret`);
  assert.equal(rotated.statusCode, 200);
  assert.notEqual(rotated.json().client_secret, c.client_secret);
  await ctx.tokens.grant(c.client_id, rotated.json().client_secret);

  const revoked = await call('POST', `${T()}/clients/${c.client_id}/revoke`);
  assert.deepEqual(revoked.json(), { client_id: c.client_id, status: 'revoked' });
  assert.equal((await call('POST', `${T()}/clients/${other.client.client_id}/revoke`)).statusCode, 404);
  assert.equal((await call('POST', `${T()}/clients/wl_nobody/rotate-secret`)).statusCode, 404);
  const untouched = await ctx.tenants.listClients(other.tenant.tenant_id);
  assert.equal(untouched[0]!.status, 'active');
});

test('disable: the tenant is disabled, again changes nothing; an unknown tenant is 403 (not its own)', async () => {
  const own = await seedClient(ctx, { scopes: ['admin'] });
  const url = `/admin/tenants/${own.tenant.tenant_id}/disable`;
  const first = await call('POST', url, undefined, own.auth);
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.json().disabled, true);
  assert.equal(first.json().changed, true);
  const again = await call('POST', url, undefined, own.auth);
  assert.equal(again.json().changed, false);
  await ctx.tokens.refresh();
  assert.equal((await call('GET', `/admin/tenants/${own.tenant.tenant_id}`, undefined, own.auth)).statusCode, 401, 'its own token is refused now');
  assert.equal((await call('GET', '/admin/tenants/00000000-0000-4000-8000-000000000000')).statusCode, 403);
});

test('a refused wallet or user-auth body names the body\'s fields, not the CLI\'s options', async () => {
  const detail = async (path: string, body: unknown) => {
    const res = await call('PUT', `${T()}${path}`, body);
    assert.equal(res.statusCode, 400, res.body);
    return res.json().detail as string;
  };
  const wallet = (body: Record<string, unknown>) => detail('/wallet', { verify: false, ...body });
  assert.equal(await wallet({ url: 'https://wallet.example.com', auth: 'client_credentials', client_id: 'c' }),
    'auth client_credentials needs client_id and client_secret');
  assert.equal(await wallet({ url: 'https://wallet.example.com', auth: 'api_key' }), 'auth api_key needs api_key');
  assert.equal(await wallet({ url: 'https://wallet.example.com', auth: 'api_key', api_key: 'k', client_id: 'c' }),
    'client_id/client_secret belong to auth client_credentials');
  assert.equal(await wallet({ url: 'notaurl', auth: 'api_key', api_key: 'k' }), 'url "notaurl" is not a URL (expected e.g. https://wallet.example.com/api)');
  assert.match(await wallet({ url: 'https://u:p@wallet.example.com', auth: 'api_key', api_key: 'k' }),
    /^url must not carry a user name or password: give the wallet's credentials with client_id and client_secret, or api_key/);
  assert.equal(await wallet({ url: 'https://wallet.example.com', auth: 'api_key', api_key: 'k é' }),
    'api_key must be printable ASCII, without leading or trailing spaces (it is sent as an HTTP header value)');
  assert.equal(await wallet({ url: 'https://wallet.example.com', auth: 'api_key', api_key: 'k', signing_secret: 'short' }),
    'signing_secret must be at least 16 characters');
  assert.equal(await detail('/auth', { mode: 'jwt', client_id: 'web' }),
    'mode jwt needs jwks_url: the URL of the tenant\'s JWKS (e.g. https://idp.example.com/.well-known/jwks.json)');
  assert.equal(await detail('/auth', { mode: 'custom', client_id: 'web' }), 'jwks_url and client_id belong to mode jwt; custom mode takes neither');
  assert.equal(await detail('/auth', { mode: 'jwt', jwks_url: 'ftp://idp.example.com/jwks', client_id: 'web' }),
    'jwks_url must use https:// (or http:// for a local JWKS), got "ftp:"');
  assert.equal(await detail('/auth', { mode: 'jwt', jwks_url: 'https://idp.example.com/jwks', client_id: 'a b' }),
    'client_id must be 1 to 200 characters, without spaces or quotes');

  const env = cliEnv(ctx.db.url);
  const cli = await runCli(['tenant', 'set-wallet', admin.tenant.tenant_id, '--url', 'https://wallet.example.com', '--auth', 'client_credentials',
    '--client-id', 'c', '--no-verify'], env);
  assert.equal(cli.stderr.split('\n')[0], 'wagerline: --auth client_credentials needs --client-id and --client-secret', 'the CLI keeps its option names');
});

test('timezone: replaces a zone the database does not know or reads differently, as tenant set-zone does; a bad zone is 400, a sound one 409', async () => {
  // Stored as before creation checked zones: a name retired from tzdata that Node still takes.
  const { rows } = await ctx.db.pool.query<{ tenant_id: string }>(
    "INSERT INTO tenants (name, currency, timezone) VALUES ('Regina Bet', 'AUD', 'Canada/East-Saskatchewan') RETURNING tenant_id");
  const own = await seedClient(ctx, { scopes: ['admin'], tenantId: rows[0]!.tenant_id });
  const url = `/admin/tenants/${own.tenant.tenant_id}/timezone`;
  const refused = async (body: unknown, status: number, code: string, detail: RegExp) => {
    const res = await call('PUT', url, body, own.auth);
    assert.deepEqual([res.statusCode, res.json().code], [status, code], res.body);
    assert.match(res.json().detail, detail);
  };
  await refused({ timezone: 'US/Pacific-New' }, 400, 'bad_request', /^timezone "US\/Pacific-New" is not a time zone the database knows.*"America\/Los_Angeles"/);
  await refused({ timezone: '+10:00' }, 400, 'bad_request', /is not an IANA time zone name/);
  await refused({}, 400, 'validation_failed', /timezone/);
  await refused({ timezone: 'America/Regina', name: 'x' }, 400, 'validation_failed', /name/);
  assert.equal((await ctx.tenants.requireTenant(own.tenant.tenant_id)).timezone, 'Canada/East-Saskatchewan', 'the refusals changed nothing');

  const fixed = await call('PUT', url, { timezone: 'America/Regina' }, own.auth);
  assert.equal(fixed.statusCode, 200, fixed.body);
  const cliShow = await runCli(['tenant', 'show', own.tenant.tenant_id], cliEnv(ctx.db.url));
  assert.deepEqual(fixed.json(), { ...cliShow.json().tenant, previous_timezone: 'Canada/East-Saskatchewan' }, 'the tenant as the CLI shows it now');
  await refused({ timezone: 'Pacific/Auckland' }, 409, 'conflict',
    /time zone "America\/Regina" is one the database knows and reads as Node.js does: only a zone it does not know or reads differently is replaced/);
  // A zone PostgreSQL reads as an abbreviation (CET: UTC+1 all year) and Intl with summer time is replaced too.
  await ctx.db.pool.query("UPDATE tenants SET timezone = 'CET' WHERE tenant_id = $1", [own.tenant.tenant_id]);
  await refused({ timezone: 'WET' }, 400, 'bad_request', /^timezone "WET" is a time zone abbreviation to the database/);
  const replaced = await call('PUT', url, { timezone: 'Europe/Paris' }, own.auth);
  assert.deepEqual([replaced.statusCode, replaced.json().timezone, replaced.json().previous_timezone], [200, 'Europe/Paris', 'CET'], replaced.body);
  const platform = await seedClient(ctx, { scopes: ['admin', 'platform'] });
  const unknown = await call('PUT', '/admin/tenants/00000000-0000-4000-8000-000000000000/timezone', { timezone: 'America/Regina' }, platform.auth);
  assert.deepEqual([unknown.statusCode, unknown.json().code], [404, 'tenant_not_found']);
});
