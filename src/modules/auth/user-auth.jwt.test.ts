// jwt mode (spec 5.2): every rule with a token that breaks exactly that rule, against real JWKS
// servers on 127.0.0.1 and a real database; time moves on the injected clock.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { SignJWT } from 'jose';
import { createSecretBox } from '../../crypto/secret-box.ts';
import { AppError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { testClock, testServices } from '../../../test/helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { TestJwks, testKey, unsignedToken } from '../../../test/helpers/jwks.ts';
import { freePort } from '../../../test/helpers/net.ts';

const COOLDOWN_MS = 500;
let db: TestDatabase;
let services: Services;
const logged: Array<Record<string, unknown>> = [];
const clock = testClock();
const servers: TestJwks[] = [];
let jwksA: TestJwks;
let jwksB: TestJwks;
let tenantA: string;
let tenantB: string;

async function tenant(name: string): Promise<string> {
  return (await services.tenants.createTenant({ name })).tenant_id;
}

async function jwtTenant(name: string, jwks: TestJwks): Promise<string> {
  const id = await tenant(name);
  await services.users.setAuth(id, { mode: 'jwt', jwksUrl: jwks.url, clientId: jwks.clientId });
  return id;
}

async function server(clientId: string): Promise<TestJwks> {
  const jwks = await TestJwks.start(clientId);
  servers.push(jwks);
  return jwks;
}

before(async () => {
  db = await freshDatabase();
  const box = createSecretBox(randomBytes(32));
  services = testServices(db, box, { clock, log: (message, fields) => logged.push({ message, ...fields }), userAuth: { jwksCooldownMs: COOLDOWN_MS, jwksTimeoutMs: 300 } });
  jwksA = await server('frontend-a');
  jwksB = await server('frontend-b');
  tenantA = await jwtTenant('Alpha Bet', jwksA);
  tenantB = await jwtTenant('Beta Bet', jwksB);
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await services.close();
  await db.drop();
});

const headers = (tenantId: string, token: string) => ({ authorization: `Bearer ${token}`, 'x-tenant-id': tenantId });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Refused with this code and reason, and the token appears nowhere in the error. */
async function refused(tenantId: string, token: string, reason: string, code = 'user_unauthenticated'): Promise<AppError> {
  let caught: unknown;
  await assert.rejects(services.users.authenticate(headers(tenantId, token)), (error) => (caught = error, true));
  const error = caught as AppError;
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  assert.equal(error.extensions.reason, reason, error.message);
  const shown = `${error.message} ${JSON.stringify(error.extensions)} ${JSON.stringify(error.headers)}`;
  assert.equal(shown.includes(token), false, 'the token is never repeated');
  for (const part of token.split('.').filter((p) => p.length > 8)) assert.equal(shown.includes(part), false);
  return error;
}

test('a valid RS256 token: the user is username, lower-cased; metadata is built from the claims', async () => {
  const user = randomUUID().toUpperCase();
  const token = await jwksA.token(user, { now: clock() });
  const verified = await services.users.authenticate(headers(tenantA.toUpperCase(), token));
  const userId = user.toLowerCase();
  assert.deepEqual(verified, {
    tenantId: tenantA, userId, mode: 'jwt', token,
    metadata: { userId, brandName: 'Alpha Bet', brandUserId: userId, data: '{}' },
    expiresInMs: (3600 + 60) * 1000 - (clock().getTime() % 1000), // exp and its leeway, from now
    tenantTimezoneUsable: true,
  });
  // aud as a one-element array is the same audience.
  const arrayAud = await jwksA.token(userId, { now: clock(), claims: { aud: [userId] } });
  assert.equal((await services.users.authenticate(headers(tenantA, arrayAud))).userId, userId);
});

test('a tampered signature or payload is refused', async () => {
  const token = await jwksA.token(randomUUID(), { now: clock() });
  const [h, p, s] = token.split('.') as [string, string, string];
  const flipped = `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
  await refused(tenantA, `${h}.${p}.${flipped}`, 'bad_signature');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const other = randomUUID();
  const forged = Buffer.from(JSON.stringify({ ...claims, username: other, aud: other })).toString('base64url');
  await refused(tenantA, `${h}.${forged}.${s}`, 'bad_signature');
});

test('exp: 60 s of leeway, not more', async () => {
  const token = await jwksA.token(randomUUID(), { now: clock(), expIn: 600 });
  clock.advance(600_000 + 59_000);
  assert.ok(await services.users.authenticate(headers(tenantA, token)), 'within the leeway');
  clock.advance(2_000);
  const error = await refused(tenantA, token, 'expired');
  assert.match(error.message, /expired at \d{4}-/);
  clock.advance(-661_000);
  await refused(tenantA, await jwksA.token(randomUUID(), { now: clock(), expIn: null }), 'claim_missing');
});

test('nbf: a token not yet valid beyond 60 s is refused', async () => {
  await refused(tenantA, await jwksA.token(randomUUID(), { now: clock(), nbfIn: 61 }), 'not_yet_valid');
  assert.ok(await services.users.authenticate(headers(tenantA, await jwksA.token(randomUUID(), { now: clock(), nbfIn: 59 }))));
});

test('only RS256: none, HS256 keyed with the public key, ES256 and PS256 are refused before any key fetch', async () => {
  const user = randomUUID();
  const claims = { client_id: jwksA.clientId, token_use: 'access', username: user, aud: user, exp: Math.floor(clock().getTime() / 1000) + 600 };
  const ec = await testKey('ES256');
  jwksA.keys.push(ec); // published, so only the alg rule can refuse it
  const before = jwksA.fetches;
  await refused(tenantA, unsignedToken({ kid: jwksA.key.kid }, claims), 'alg_not_allowed');
  const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: jwksA.key.kid }).sign(new TextEncoder().encode(await jwksA.publicPem()));
  const error = await refused(tenantA, hs, 'alg_not_allowed');
  assert.match(error.message, /"HS256"; only RS256/);
  await refused(tenantA, await jwksA.token(user, { now: clock(), key: ec }), 'alg_not_allowed');
  const ps = await testKey('PS256', jwksA.key.kid);
  await refused(tenantA, await jwksA.token(user, { now: clock(), key: ps }), 'alg_not_allowed');
  await refused(tenantA, await jwksA.token(user, { now: clock(), header: { kid: undefined } }), 'kid_missing');
  assert.equal(jwksA.fetches, before);
  jwksA.keys.pop();
});

test('kid: an unknown kid is refused; a rotated JWKS is refetched, at most once per cooldown', async () => {
  const jwks = await server('frontend-rotating');
  const id = await jwtTenant('Rotating Bet', jwks);
  // Keys and tokens first: RSA key generation may take longer than the cooldown on a busy machine.
  const [next, unknown] = [await testKey(), await testKey()];
  const [current, rotated, stranger] = [
    await jwks.token(randomUUID(), { now: clock() }),
    await jwks.token(randomUUID(), { now: clock(), key: next }),
    await jwks.token(randomUUID(), { now: clock(), key: unknown }),
  ];
  assert.ok(await services.users.authenticate(headers(id, current)));
  assert.equal(jwks.fetches, 1);
  await refused(id, rotated, 'unknown_kid');
  jwks.keys.push(next);
  await refused(id, rotated, 'unknown_kid'); // still in the cooldown: no fetch
  assert.equal(jwks.fetches, 1);
  await sleep(COOLDOWN_MS + 50);
  assert.ok(await services.users.authenticate(headers(id, rotated)), 'the new key is fetched once the cooldown is over');
  assert.equal(jwks.fetches, 2);
  await sleep(COOLDOWN_MS + 50);
  await refused(id, stranger, 'unknown_kid');
  await refused(id, stranger, 'unknown_kid');
  assert.equal(jwks.fetches, 3, 'a burst of unknown kids costs one fetch');
});

test('a new configuration gets a new key set at once', async () => {
  const first = await server('frontend-moving');
  const id = await jwtTenant('Moving Bet', first);
  const old = await first.token(randomUUID(), { now: clock() });
  assert.ok(await services.users.authenticate(headers(id, old)));
  const second = await server('frontend-moving');
  await services.users.setAuth(id, { mode: 'jwt', jwksUrl: second.url, clientId: second.clientId });
  assert.ok(await services.users.authenticate(headers(id, await second.token(randomUUID(), { now: clock() }))));
  await refused(id, old, 'unknown_kid');
});

test('claims: client_id, token_use, aud and username', async () => {
  const user = randomUUID();
  const t = (claims: Record<string, unknown>) => jwksA.token(user, { now: clock(), claims });
  await refused(tenantA, await t({ client_id: 'someone-else' }), 'wrong_client_id');
  await refused(tenantA, await t({ client_id: undefined }), 'claim_missing');
  await refused(tenantA, await t({ token_use: 'id' }), 'wrong_token_use');
  await refused(tenantA, await t({ token_use: undefined }), 'claim_missing');
  await refused(tenantA, await t({ aud: randomUUID() }), 'aud_username_mismatch');
  await refused(tenantA, await t({ aud: 'wagerline' }), 'wrong_audience');
  await refused(tenantA, await t({ aud: [user, randomUUID()] }), 'wrong_audience');
  await refused(tenantA, await t({ aud: undefined }), 'claim_missing');
  await refused(tenantA, await t({ username: 'alice', aud: 'alice' }), 'username_not_uuid');
  await refused(tenantA, await t({ username: undefined }), 'claim_missing');
});

test('tenants: another tenant\'s token, an unconfigured or unknown tenant, a bad X-Tenant-Id', async () => {
  const fetchesOfB = jwksB.fetches;
  await refused(tenantB, await jwksA.token(randomUUID(), { now: clock() }), 'tenant_mismatch');
  assert.equal(jwksB.fetches, fetchesOfB, 'refused without fetching the other tenant\'s keys');
  const token = await jwksA.token(randomUUID(), { now: clock() });
  await refused(await tenant('Unconfigured Bet'), token, 'tenant_not_configured');
  await refused(randomUUID(), token, 'tenant_unknown');
  for (const bad of [{ 'x-tenant-id': 'acme' }, {}, { 'x-tenant-id': [tenantA, tenantB] }]) {
    await assert.rejects(services.users.authenticate({ authorization: `Bearer ${token}`, ...bad }), (e: AppError) => e.code === 'bad_request');
  }
});

test('the bearer: missing, not Bearer, not a JWT', async () => {
  await assert.rejects(services.users.authenticate({ 'x-tenant-id': tenantA }), (e: AppError) =>
    e.extensions.reason === 'token_missing' && e.headers['www-authenticate'] === 'Bearer realm="wagerline"');
  await assert.rejects(services.users.authenticate({ 'x-tenant-id': tenantA, authorization: 'Basic YTpi' }), (e: AppError) => e.extensions.reason === 'token_malformed');
  await refused(tenantA, 'not-a-jwt', 'token_malformed');
  await refused(tenantA, 'x'.repeat(9000), 'token_malformed');
});

test('a JWKS that cannot be fetched is a 503 (retry), not a 401', async () => {
  const closed = `http://127.0.0.1:${await freePort()}/.well-known/jwks.json`;
  const id = await tenant('Unreachable Bet');
  await services.users.setAuth(id, { mode: 'jwt', jwksUrl: closed, clientId: jwksA.clientId });
  const token = await jwksA.token(randomUUID(), { now: clock() });
  const error = await refused(id, token, 'jwks_unavailable', 'user_auth_unavailable');
  assert.equal(error.status, 503);
  const told = logged.filter((l) => l.tenant === id);
  assert.equal(told.length, 1, 'logged for the operator');
  assert.deepEqual([told[0]!.message, told[0]!.jwks_url], ['tenant JWKS unavailable: check its jwks_url', closed]);
  assert.ok(!JSON.stringify(told).includes(token.split('.')[1]!), 'never the token');
  for (const fault of ['hang', 'status500', 'not-json'] as const) {
    const broken = await server(`frontend-${fault}`);
    broken.fault = fault;
    const started = Date.now();
    await refused(await jwtTenant(`Broken ${fault}`, broken), await broken.token(randomUUID(), { now: clock() }), 'jwks_unavailable', 'user_auth_unavailable');
    assert.ok(Date.now() - started < 2000, `${fault}: bounded by the fetch timeout`);
  }
});

test('a JWKS URL with a secret in its query string: logged and quoted in errors with the query redacted', async () => {
  const secret = 'jwks-query-secret-0001';
  const closed = `http://127.0.0.1:${await freePort()}/.well-known/jwks.json?api_key=${secret}&tenant=alpha&${secret}`;
  const id = await tenant('Query Secret Bet');
  await services.users.setAuth(id, { mode: 'jwt', jwksUrl: closed, clientId: jwksA.clientId });
  await refused(id, await jwksA.token(randomUUID(), { now: clock() }), 'jwks_unavailable', 'user_auth_unavailable');
  const told = logged.filter((l) => l.tenant === id);
  assert.equal(told.length, 1);
  assert.equal(told[0]!.jwks_url, closed.replace(/\?.*$/, '?api_key=[Redacted]&tenant=[Redacted]&[Redacted]'));
  assert.ok(!JSON.stringify(told).includes(secret), JSON.stringify(told));
  // A value that is not a URL is quoted without its query too.
  await assert.rejects(services.users.setAuth(id, { mode: 'jwt', jwksUrl: `not a url?token=${secret}`, clientId: jwksA.clientId }), (error: AppError) => {
    assert.equal(error.code, 'bad_request');
    assert.equal(error.message, '--jwks-url "not a url?token=[Redacted]" is not a URL (expected e.g. https://idp.example.com/.well-known/jwks.json)');
    return true;
  });
});

test('a verified token is reused without a second signature check, never past its exp or its tenant\'s configuration', async () => {
  const jwks = await server('frontend-repeat');
  const id = await jwtTenant('Repeat Bet', jwks);
  const user = randomUUID();
  const token = await jwks.token(user, { now: clock(), expIn: 600 });
  const hits = () => services.users.verifiedTokenStats().hits;
  const start = hits();
  assert.equal((await services.users.authenticate(headers(id, token))).userId, user);
  assert.equal(hits(), start, 'the first use is verified');
  assert.equal((await services.users.authenticate(headers(id, token))).userId, user);
  assert.equal(hits(), start + 1, 'the second is answered by the first verification');
  await refused(tenantA, token, 'tenant_mismatch'); // kept for its own tenant only
  clock.advance(661_000);
  await refused(id, token, 'expired');
  clock.advance(-661_000);
  const fresh = await jwks.token(user, { now: clock() });
  assert.ok(await services.users.authenticate(headers(id, fresh)));
  await services.users.setAuth(id, { mode: 'jwt', jwksUrl: jwks.url, clientId: 'frontend-renamed' });
  await refused(id, fresh, 'wrong_client_id');
});

test('verified tokens: kept for the configured time only, and not at all with 0', async () => {
  const box = createSecretBox(randomBytes(32));
  for (const ttl of [0, 150]) {
    // 0 through the setting (WAGERLINE_USER_TOKEN_CACHE_SECONDS), 150 ms through the service's option.
    const own = ttl === 0
      ? testServices(db, box, { clock, settings: { WAGERLINE_USER_TOKEN_CACHE_SECONDS: 0 } })
      : testServices(db, box, { clock, userAuth: { verifiedTokenTtlMs: ttl } });
    try {
      const token = await jwksA.token(randomUUID(), { now: clock() });
      for (let i = 0; i < 3; i += 1) assert.ok(await own.users.authenticate(headers(tenantA, token)));
      assert.equal(own.users.verifiedTokenStats().hits, ttl === 0 ? 0 : 2, `ttl ${ttl}`);
      assert.equal(own.users.verifiedTokenStats().size, ttl === 0 ? 0 : 1);
      if (ttl === 0) continue;
      await sleep(ttl + 50);
      assert.ok(await own.users.authenticate(headers(tenantA, token)));
      assert.equal(own.users.verifiedTokenStats().hits, 2, 'verified again once the time is over');
    } finally {
      await own.close();
    }
  }
});
