// The platform's admin routes (scope platform) and the reach of tokens: a platform token acts on
// every tenant and gives the powers that reach beyond a tenant; a tenant's admin token does
// neither, and what it is refused writes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { cliEnv, runCli } from '../../../test/helpers/cli.ts';

let ctx: TestContext;
let platform: Awaited<ReturnType<typeof seedClient>>;
let admin: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  platform = await seedClient(ctx, { scopes: ['admin', 'platform'] });
  admin = await seedClient(ctx, { scopes: ['admin'] });
});
after(() => ctx.close());

type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, payload?: unknown, auth: Record<string, string> = platform.auth) =>
  ctx.app.inject({ method, url, headers: auth, ...(payload !== undefined && { payload: payload as object }) });
const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid as string;

test('every platform route: 401 without a token, 403 for a tenant\'s admin token, and nothing written', async () => {
  const backoffice = await seedClient(ctx, { scopes: ['backoffice'], tenantId: admin.tenant.tenant_id });
  const routes: Array<[Method, string, unknown?]> = [
    ['GET', '/admin/tenants'], ['POST', '/admin/tenants', { name: 'Sneaky Bet' }],
    ['PUT', `/admin/clients/${backoffice.client.client_id}/grants`, { tenants: [platform.tenant.tenant_id] }],
    ['POST', '/admin/signing-keys/rotate'],
  ];
  const tenantsBefore = await ctx.tenants.listTenants();
  const kidsBefore = (await ctx.app.inject({ url: '/.well-known/jwks.json' })).json().keys.length;
  for (const [method, url, body] of routes) {
    assert.equal((await call(method, url, body, {})).statusCode, 401, `${method} ${url}`);
    const refused = await call(method, url, body, admin.auth);
    assert.equal(refused.statusCode, 403, `${method} ${url}`);
    assert.match(refused.json().detail, /scope "platform"/);
  }
  assert.deepEqual(await ctx.tenants.listTenants(), tenantsBefore);
  assert.equal((await ctx.app.inject({ url: '/.well-known/jwks.json' })).json().keys.length, kidsBefore);
  assert.deepEqual((await ctx.tenants.backofficeClient(backoffice.client.client_id))!.tenant_ids, [admin.tenant.tenant_id]);
});

test('tenant create and list answer the same JSON as the CLI; bad bodies are 400', async () => {
  const created = await call('POST', '/admin/tenants', { name: 'Group Brand Two', currency: 'NZD', timezone: 'Pacific/Auckland' });
  assert.equal(created.statusCode, 200, created.body);
  assert.deepEqual(Object.keys(created.json()).sort(), ['currency', 'name', 'tenant_id', 'timezone']);
  assert.equal(created.json().currency, 'NZD');
  const listed = await call('GET', '/admin/tenants');
  assert.equal(listed.statusCode, 200);
  const cli = await runCli(['tenant', 'list'], cliEnv(ctx.db.url));
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(listed.json(), cli.json());
  assert.ok(listed.json().tenants.some((t: { tenant_id: string }) => t.tenant_id === created.json().tenant_id));

  for (const body of [{}, { name: 'X', currency: 'XYZ' }, { name: 'X', timezone: 'Mars/Olympus' }, { name: 'X', extra: 1 }, { name: ' ' }]) {
    const bad = await call('POST', '/admin/tenants', body);
    assert.equal(bad.statusCode, 400, JSON.stringify(body));
  }
  // A name PostgreSQL reads as an abbreviation (fixed UTC+1) and Intl as a zone with summer time.
  const misread = await call('POST', '/admin/tenants', { name: 'X', timezone: 'CET' });
  assert.deepEqual([misread.statusCode, misread.json().code], [400, 'bad_request'], misread.body);
  assert.match(misread.json().detail, /^timezone "CET" is a time zone abbreviation to the database: .*use a Region\/City name/);
  assert.equal((await call('GET', '/admin/tenants')).json().tenants.length, listed.json().tenants.length, 'no tenant from a bad body');
});

test('grants: set, replaced and removed as with the CLI; not a back-office client is 400, unknown 404', async () => {
  const brand = await seedClient(ctx, { scopes: ['backoffice'] });
  const sister = (await call('POST', '/admin/tenants', { name: 'Sister Brand' })).json().tenant_id as string;
  const url = `/admin/clients/${brand.client.client_id}/grants`;
  const granted = await call('PUT', url, { tenants: [sister] });
  assert.equal(granted.statusCode, 200, granted.body);
  assert.deepEqual(granted.json(), { client_id: brand.client.client_id, tenant_id: brand.tenant.tenant_id, granted: [sister], tenants: [brand.tenant.tenant_id, sister] });
  const cli = await runCli(['client', 'grant', brand.client.client_id, '--tenants', sister], cliEnv(ctx.db.url));
  assert.deepEqual(cli.json(), granted.json());
  const removed = await call('PUT', url, { tenants: [] });
  assert.deepEqual(removed.json().granted, []);

  assert.equal((await call('PUT', `/admin/clients/${admin.client.client_id}/grants`, { tenants: [sister] })).statusCode, 400);
  assert.equal((await call('PUT', '/admin/clients/wl_nobody/grants', { tenants: [sister] })).statusCode, 404);
  assert.equal((await call('PUT', url, { tenants: ['00000000-0000-4000-8000-000000000000'] })).statusCode, 404);
  assert.equal((await call('PUT', url, { tenants: ['not-a-uuid'] })).statusCode, 400);
  assert.deepEqual((await ctx.tenants.backofficeClient(brand.client.client_id))!.tenant_ids, [brand.tenant.tenant_id]);
});

test('signing key rotation: new tokens carry the new kid, tokens of the old key still work', async () => {
  const oldToken = platform.token;
  const rotated = await call('POST', '/admin/signing-keys/rotate');
  assert.equal(rotated.statusCode, 200, rotated.body);
  const { kid } = rotated.json();
  assert.notEqual(kid, kidOf(oldToken));
  const fresh = await ctx.tokens.grant(platform.client.client_id, platform.client.client_secret);
  assert.equal(kidOf(fresh.access_token), kid);
  assert.equal((await call('GET', '/admin/tenants', undefined, { authorization: `Bearer ${oldToken}` })).statusCode, 200);
  const kids = (await ctx.app.inject({ url: '/.well-known/jwks.json' })).json().keys.map((k: { kid: string }) => k.kid);
  assert.ok(kids.includes(kid) && kids.includes(kidOf(oldToken)));
});

test('a platform token acts on every tenant\'s admin routes', async () => {
  const T = `/admin/tenants/${admin.tenant.tenant_id}`;
  const shown = await call('GET', T);
  assert.equal(shown.statusCode, 200, shown.body);
  assert.equal(shown.json().tenant.tenant_id, admin.tenant.tenant_id);
  const limits = await call('PUT', `${T}/limits`, { max_stake: '75' });
  assert.equal(limits.json().max_stake, '75.00');
  assert.equal((await call('GET', `${T}/wallet-calls/failed`)).statusCode, 200);
  assert.equal((await call('GET', '/admin/tenants/00000000-0000-4000-8000-000000000000')).statusCode, 404, 'an unknown tenant is not found');
});

test('powers beyond a tenant: only a platform token gives them or replaces their secret', async () => {
  const T = `/admin/tenants/${admin.tenant.tenant_id}/clients`;
  const before = (await call('GET', T)).json().clients.length;
  for (const body of [{ scopes: ['catalog'] }, { scopes: ['upload', 'platform'] }, { scopes: ['report'], jurisdictions: ['VIC'] }, { scopes: ['report'], venues: ['VIC:Flemington'] }]) {
    const refused = await call('POST', T, body, admin.auth);
    assert.equal(refused.statusCode, 403, JSON.stringify(body));
    assert.match(refused.json().detail, /only the platform may create such a client/);
  }
  assert.equal((await call('GET', T)).json().clients.length, before, 'nothing created');
  assert.equal((await call('POST', T, { scopes: ['report'] }, admin.auth)).statusCode, 200, 'an analyst of its own tenant is fine');

  const authority = await call('POST', T, { scopes: ['report'], jurisdictions: ['VIC'] });
  assert.equal(authority.statusCode, 200, authority.body);
  const id = authority.json().client_id as string;
  const stolen = await call('POST', `${T}/${id}/rotate-secret`, undefined, admin.auth);
  assert.equal(stolen.statusCode, 403);
  await ctx.tokens.grant(id, authority.json().client_secret);
  assert.equal((await call('POST', `${T}/${id}/rotate-secret`)).statusCode, 200, 'the platform may');
  assert.equal((await call('POST', `${T}/${id}/revoke`, undefined, admin.auth)).statusCode, 200, 'a tenant may revoke it');

  const track = await call('POST', T, { scopes: ['report'], venues: [' vic:Flemington ', 'VIC:flemington', 'VIC:Bendigo:h'] });
  assert.equal(track.statusCode, 200, track.body);
  assert.deepEqual([track.json().venues, track.json().jurisdictions], [['VIC:Flemington', 'VIC:Bendigo:H'], []], 'canonical, one per track whatever the case');
  const bare = await call('POST', T, { scopes: ['report'], venues: ['Flemington'] });
  assert.equal(bare.statusCode, 400, bare.body);
  assert.match(bare.json().detail, /venue "Flemington" is not JURISDICTION:Venue or JURISDICTION:Venue:CODE/);
  assert.equal((await call('POST', `${T}/${track.json().client_id}/rotate-secret`, undefined, admin.auth)).statusCode, 403);
  const both = await call('POST', T, { scopes: ['report'], venues: ['VIC:Flemington'], jurisdictions: ['VIC'] });
  assert.equal(both.statusCode, 400, both.body);
  assert.match(both.json().detail, /jurisdictions \(an authority\) or venues \(a track owner\), not both/);
  const listed = (await call('GET', T)).json().clients.length;
  for (const body of [{ scopes: ['upload'], jurisdictions: ['VIC'] }, { scopes: ['backoffice', 'upload'], venues: ['VIC:Flemington'] }]) {
    const reachless = await call('POST', T, body);
    assert.equal(reachless.statusCode, 400, reachless.body);
    assert.match(reachless.json().detail, /jurisdictions and venues are for report clients: add "report" to the scopes \(/);
  }
  assert.equal((await call('GET', T)).json().clients.length, listed, 'nothing created');
});

test('an upload client names its agencies: without any it is refused, since every bet it sent would be', async () => {
  const T = `/admin/tenants/${admin.tenant.tenant_id}/clients`;
  const listed = (await call('GET', T)).json().clients.length;
  for (const body of [{ scopes: ['upload'] }, { scopes: ['upload', 'report'], agencies: [] }, { scopes: ['upload'], agencies: [' '] }]) {
    const res = await call('POST', T, body);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().detail, /agencies must name at least one source code for an upload client/);
  }
  assert.equal((await call('GET', T)).json().clients.length, listed, 'nothing created');
  const uploader = await call('POST', T, { scopes: ['upload'], agencies: ['tab'] });
  assert.equal(uploader.statusCode, 200, uploader.body);
  assert.deepEqual(uploader.json().agencies, ['TAB']);
  const reader = await call('POST', T, { scopes: ['report'] });
  assert.equal(reader.statusCode, 200, 'a client without the upload scope needs no agency');
});

test('agencies are for upload clients: given to another client they are refused, nothing stored', async () => {
  const T = `/admin/tenants/${admin.tenant.tenant_id}/clients`;
  const listed = (await call('GET', T)).json().clients.length;
  for (const body of [{ scopes: ['report'], agencies: ['TAB'] }, { scopes: ['backoffice', 'catalog'], agencies: ['tab', 'xbet'] }]) {
    const res = await call('POST', T, body);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().detail, /agencies are for upload clients: add "upload" to the scopes \(/);
  }
  assert.equal((await call('GET', T)).json().clients.length, listed, 'nothing created');
  const blank = await call('POST', T, { scopes: ['report'], agencies: [] });
  assert.equal(blank.statusCode, 200, 'an empty list names no agency');
});

test('a back-office client granted other tenants: its secret is the platform\'s to replace', async () => {
  const T = `/admin/tenants/${admin.tenant.tenant_id}/clients`;
  const group = (await call('POST', T, { scopes: ['backoffice'] }, admin.auth)).json();
  assert.equal((await call('POST', `${T}/${group.client_id}/rotate-secret`, undefined, admin.auth)).statusCode, 200, 'no grant yet: its own tenant\'s');
  const sister = (await call('POST', '/admin/tenants', { name: 'Sister Brand Two' })).json().tenant_id as string;
  assert.equal((await call('PUT', `/admin/clients/${group.client_id}/grants`, { tenants: [sister] })).statusCode, 200);
  const refused = await call('POST', `${T}/${group.client_id}/rotate-secret`, undefined, admin.auth);
  assert.equal(refused.statusCode, 403, refused.body);
  assert.match(refused.json().detail, /back-office grant/);
  assert.equal((await call('POST', `${T}/${group.client_id}/rotate-secret`)).statusCode, 200, 'the platform may');
});
