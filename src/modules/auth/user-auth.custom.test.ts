// custom mode (the X-Host-State-User header), set-auth's rules, and a log capture: no token of
// either mode, nor the custom metadata header, ever reaches the logs.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { buildApp } from '../../app.ts';
import { createSecretBox } from '../../crypto/secret-box.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { testServices } from '../../../test/helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { TestJwks } from '../../../test/helpers/jwks.ts';
import { freePort } from '../../../test/helpers/net.ts';

let db: TestDatabase;
let services: Services;
let custom: string;
const box = createSecretBox(randomBytes(32));

before(async () => {
  db = await freshDatabase();
  services = testServices(db, box);
  custom = (await services.tenants.createTenant({ name: 'Custom Bet' })).tenant_id;
  await services.users.setAuth(custom, { mode: 'custom' });
});
after(async () => {
  await services.close();
  await db.drop();
});

const meta = (over: Record<string, unknown> = {}) => ({ userId: randomUUID(), brandName: 'Custom Bet', brandUserId: 'cb-1001', data: '{"vip":true}', ...over });

function request(hostState: string | undefined, token = 'opaque.operator-token==') {
  return services.users.authenticate({
    authorization: `Bearer ${token}`, 'x-tenant-id': custom,
    ...(hostState !== undefined && { 'x-host-state-user': hostState }),
  });
}

async function refusedWith(promise: Promise<unknown>, reason: string, pattern?: RegExp) {
  await assert.rejects(promise, (e: AppError) => {
    assert.equal(e.code, 'user_unauthenticated');
    assert.equal(e.extensions.reason, reason, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test('custom mode: the opaque token and the host.state.user metadata are returned for reserve', async () => {
  const m = meta({ userId: randomUUID().toUpperCase(), extra: 'ignored' });
  const user = await request(JSON.stringify(m));
  const userId = m.userId.toLowerCase();
  assert.deepEqual(user, {
    tenantId: custom, userId, mode: 'custom', token: 'opaque.operator-token==',
    metadata: { userId, brandName: 'Custom Bet', brandUserId: 'cb-1001', data: '{"vip":true}' }, expiresInMs: null, tenantTimezoneUsable: true,
  });
  // Values outside ASCII travel as the base64url of the UTF-8 JSON.
  const accented = meta({ brandName: 'Pâquerette Paris' });
  const encoded = Buffer.from(JSON.stringify(accented)).toString('base64url');
  assert.equal((await request(encoded)).metadata.brandName, 'Pâquerette Paris');
});

test('custom mode: X-Host-State-User missing or malformed', async () => {
  await refusedWith(request(undefined), 'metadata_missing');
  await refusedWith(request('  '), 'metadata_missing');
  await refusedWith(request('{"userId":'), 'metadata_invalid', /neither a JSON object/);
  await refusedWith(request('@@@'), 'metadata_invalid');
  await refusedWith(request(Buffer.from('[1]').toString('base64url')), 'metadata_invalid', /JSON object/);
  await refusedWith(request(JSON.stringify(meta({ userId: 'u-42' }))), 'metadata_invalid', /userId must be the user's UUID/);
  await refusedWith(request(JSON.stringify(meta({ data: { vip: true } }))), 'metadata_invalid', /data must be a string/);
  const { brandName: _, ...noBrand } = meta();
  await refusedWith(request(JSON.stringify(noBrand)), 'metadata_invalid', /brandName must be a string/);
  await refusedWith(request(JSON.stringify(meta({ data: 'x'.repeat(4097) }))), 'metadata_invalid', /data is longer than 4096/);
  // PostgreSQL stores neither in the reserve's JSON: an INTERNAL_SERVER_ERROR at placement before.
  await refusedWith(request(JSON.stringify(meta({ brandName: 'a\u0000b' }))), 'metadata_invalid', /brandName holds U\+0000/);
  await refusedWith(request(JSON.stringify(meta({ data: '{"x":"\udc00"}' }))), 'metadata_invalid', /data holds U\+0000 or a lone surrogate/);
  await refusedWith(services.users.authenticate({
    authorization: 'Bearer t', 'x-tenant-id': custom, 'x-host-state-user': [JSON.stringify(meta()), JSON.stringify(meta())],
  }), 'metadata_invalid', /more than once/);
  await refusedWith(services.users.authenticate({ 'x-tenant-id': custom, 'x-host-state-user': JSON.stringify(meta()) }), 'token_missing');
});

test('setAuth and getAuth: the view, mode changes, and every refusal', async () => {
  const id = (await services.tenants.createTenant({ name: 'Config Bet' })).tenant_id;
  assert.equal(await services.users.getAuth(id), null);
  const jwt = await services.users.setAuth(id.toUpperCase(), { mode: 'jwt', jwksUrl: 'https://idp.example.com/.well-known/jwks.json', clientId: 'web-app' });
  assert.deepEqual({ ...jwt, updated_at: undefined }, {
    tenant_id: id, mode: 'jwt', jwks_url: 'https://idp.example.com/.well-known/jwks.json', client_id: 'web-app', private_network: false, updated_at: undefined,
  });
  const back = await services.users.setAuth(id, { mode: 'custom' });
  assert.deepEqual({ ...back, updated_at: undefined }, { tenant_id: id, mode: 'custom', jwks_url: null, client_id: null, private_network: false, updated_at: undefined });
  assert.deepEqual(await services.users.getAuth(id), back);

  const bad = async (tenantId: string, input: unknown, code: string, pattern: RegExp) =>
    assert.rejects(services.users.setAuth(tenantId, input as never), (e: AppError) => e.code === code && pattern.test(e.message));
  await bad('acme', { mode: 'custom' }, 'bad_request', /tenant id "acme" is not a UUID/);
  await bad(randomUUID(), { mode: 'custom' }, 'tenant_not_found', /no tenant with id/);
  await bad(id, { mode: 'jwt', clientId: 'web' }, 'bad_request', /needs --jwks-url/);
  await bad(id, { mode: 'jwt', jwksUrl: 'https://idp.example.com/jwks' }, 'bad_request', /needs --client-id/);
  await bad(id, { mode: 'jwt', jwksUrl: 'ftp://idp.example.com/jwks', clientId: 'web' }, 'bad_request', /https:\/\//);
  await bad(id, { mode: 'jwt', jwksUrl: 'not a url', clientId: 'web' }, 'bad_request', /is not a URL/);
  await bad(id, { mode: 'jwt', jwksUrl: 'https://u:p@idp.example.com/jwks', clientId: 'web' }, 'bad_request', /credentials/);
  await bad(id, { mode: 'custom', jwksUrl: 'https://idp.example.com/jwks' }, 'bad_request', /belong to --mode jwt/);
  await bad(id, { mode: 'custom', clientId: 'web' }, 'bad_request', /belong to --mode jwt/);
  await bad(id, { mode: 'saml' }, 'bad_request', /jwt or custom/);
  assert.deepEqual(await services.users.getAuth(id), back, 'nothing written by a refused set-auth');
});

test('another process\'s set-auth is seen within the configuration cache time', async () => {
  const id = (await services.tenants.createTenant({ name: 'Switching Bet' })).tenant_id;
  await services.users.setAuth(id, { mode: 'custom' });
  const process2 = testServices(db, box, { userAuth: { configTtlMs: 150 } });
  const headers = { authorization: 'Bearer opaque', 'x-tenant-id': id, 'x-host-state-user': JSON.stringify(meta()) };
  try {
    assert.equal((await process2.users.authenticate(headers)).mode, 'custom');
    await services.users.setAuth(id, { mode: 'jwt', jwksUrl: 'https://idp.example.com/jwks', clientId: 'web' });
    assert.equal((await process2.users.authenticate(headers)).mode, 'custom', 'cached a moment');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await refusedWith(process2.users.authenticate(headers), 'token_malformed', /not a JWT/);
  } finally {
    await process2.close();
  }
});

test('logs: no token of either mode and no X-Host-State-User ever reach them', async () => {
  const jwks = await TestJwks.start('frontend-logged');
  const jwtTenant = (await services.tenants.createTenant({ name: 'Logged Bet' })).tenant_id;
  await services.users.setAuth(jwtTenant, { mode: 'jwt', jwksUrl: jwks.url, clientId: jwks.clientId });
  const down = (await services.tenants.createTenant({ name: 'Down Bet' })).tenant_id;
  await services.users.setAuth(down, { mode: 'jwt', jwksUrl: `http://127.0.0.1:${await freePort()}/jwks.json`, clientId: jwks.clientId });
  let logs = '';
  const stream = new Writable({ write(chunk, _enc, done) { logs += chunk; done(); } });
  // The worst case: a serializer that logs every header, and a route that logs the whole user.
  const app = await buildApp({
    config: services.config, db: db.pool, services,
    logger: { level: 'trace', stream, serializers: { req: (req: { method: string; url: string; headers: unknown }) => ({ method: req.method, url: req.url, headers: req.headers }) } },
  });
  app.get('/probe', async (req) => {
    const user = await services.users.authenticate(req.headers);
    req.log.info({ user }, 'authenticated');
    return { user_id: user.userId };
  });
  await app.ready();
  const jwtToken = await jwks.token();
  const expired = await jwks.token(randomUUID(), { expIn: -3600 });
  // Spaced, and with a member only the header carries: the route's own log of the user's metadata
  // (not a secret) cannot be mistaken for the header's text.
  const hostState = JSON.stringify(meta({ session: 'header-only-session-7' })).replaceAll(',', ', ');
  const customToken = 'opaque-custom-token-3f9a8c';
  const send = (headers: Record<string, string>) => app.inject({ url: '/probe', headers });
  assert.equal((await send({ authorization: `Bearer ${jwtToken}`, 'x-tenant-id': jwtTenant })).statusCode, 200);
  assert.equal((await send({ authorization: `Bearer ${expired}`, 'x-tenant-id': jwtTenant })).statusCode, 401);
  assert.equal((await send({ authorization: `Bearer ${jwtToken}`, 'x-tenant-id': down })).statusCode, 503);
  assert.equal((await send({ authorization: `Bearer ${customToken}`, 'x-tenant-id': custom, 'x-host-state-user': hostState })).statusCode, 200);
  assert.equal((await send({ authorization: `Bearer ${customToken}`, 'x-tenant-id': custom, 'x-host-state-user': '{bad' })).statusCode, 401);
  await app.close();
  await jwks.close();
  assert.match(logs, /Redacted/, 'the headers were logged, redacted');
  assert.match(logs, /request failed/, 'the 503 was logged');
  for (const secret of [jwtToken, ...jwtToken.split('.'), expired, customToken, hostState, 'header-only-session-7', '{bad']) {
    assert.equal(logs.includes(secret), false, `logs contain ${secret.slice(0, 12)}…`);
  }
});

test('admits: a configured tenant yes; disabled or never configured no (what a running subscription asks)', async () => {
  const id = (await services.tenants.createTenant({ name: 'Admitting Bet' })).tenant_id;
  const other = testServices(db, box, { userAuth: { configTtlMs: 0 } });
  try {
    assert.equal(await other.users.admits(id), false, 'no user auth configured');
    await services.users.setAuth(id, { mode: 'custom' });
    assert.equal(await other.users.admits(id), true);
    await services.tenants.disableTenant(id);
    assert.equal(await other.users.admits(id), false);
    assert.equal(await other.users.admits(randomUUID()), false, 'no such tenant');
  } finally {
    await other.close();
  }
});
