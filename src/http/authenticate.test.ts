// authenticate(scope) on a real route: 401 invalid_token / 403 insufficient_scope (RFC 6750 §3),
// expired tokens, rotated signing keys, and the published JWKS.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLocalJWKSet, exportJWK, exportSPKI, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey } from 'jose';
import { rotateSigningKey } from '../modules/auth/signing-keys.ts';
import { createTestApp, seedClient, type TestContext } from '../../test/helpers/app.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestApp({}, {
    routes: (app) => {
      app.get('/probe', { preHandler: app.authenticate('upload') }, async (request) => request.principal);
    },
  });
});
after(() => ctx.close());

const probe = (headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url: '/probe', headers });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function assertProblem(res: Awaited<ReturnType<typeof probe>>, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(res.json().code, code);
  assert.match(String(res.headers['www-authenticate']), new RegExp(`^Bearer .*error="${code}"`));
}

test('no Authorization header → 401 invalid_token with WWW-Authenticate: Bearer', async () => {
  assertProblem(await probe(), 401, 'invalid_token');
});

test('a garbage token or a non-Bearer scheme → 401 invalid_token', async () => {
  assertProblem(await probe(bearer('not.a.token')), 401, 'invalid_token');
  assertProblem(await probe({ authorization: 'Basic abc' }), 401, 'invalid_token');
});

test('a token signed by another installation → 401 invalid_token', async () => {
  const other = await createTestApp();
  try {
    const { token } = await seedClient(other);
    assertProblem(await probe(bearer(token)), 401, 'invalid_token');
  } finally {
    await other.close();
  }
});

test('an expired token → 401 invalid_token saying it expired', async () => {
  const { token } = await seedClient(ctx);
  ctx.clock.advance(3601 * 1000);
  try {
    const res = await probe(bearer(token));
    assertProblem(res, 401, 'invalid_token');
    assert.match(res.json().detail, /expired/);
  } finally {
    ctx.clock.advance(-3601 * 1000);
  }
});

test('a valid token without the scope → 403 insufficient_scope', async () => {
  const { token } = await seedClient(ctx, { scopes: ['report'] });
  assertProblem(await probe(bearer(token)), 403, 'insufficient_scope');
});

test('a valid token with the scope reaches the route with its principal', async () => {
  const { token, client, tenant } = await seedClient(ctx, { scopes: ['upload'] });
  const res = await probe(bearer(token));
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { clientId: client.client_id, tenantId: tenant.tenant_id, scopes: ['upload'] });
});

test('after key rotation old tokens still verify, new tokens use the new kid, and the JWKS lists both', async () => {
  const { token: oldToken } = await seedClient(ctx);
  const kid = await rotateSigningKey(ctx.db.pool, ctx.box);
  await ctx.tokens.refresh();
  const { token: newToken } = await seedClient(ctx);
  const kidOf = (t: string) => JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()).kid;
  assert.equal(kidOf(newToken), kid);
  assert.notEqual(kidOf(oldToken), kid);
  for (const t of [oldToken, newToken]) assert.equal((await probe(bearer(t))).statusCode, 200);

  const jwks = (await ctx.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
  assert.equal(jwks.keys.length, 2);
  assert.ok(jwks.keys.every((k: Record<string, unknown>) => k.d === undefined), 'no private parts published');
  const { payload } = await jwtVerify(newToken, createLocalJWKSet(jwks));
  assert.equal(payload.iss, 'wagerline');
});

test('forged tokens naming our key are refused: alg none, HS256 keyed with our public key, another key with a jku to its JWKS', async () => {
  const { token } = await seedClient(ctx);
  const [header, payload] = token.split('.') as [string, string];
  const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string };
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  assertProblem(await probe(bearer(`${part({ alg: 'none', kid, typ: 'at+jwt' })}.${payload}.`)), 401, 'invalid_token');

  const published = (await ctx.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json().keys.find((k: { kid: string }) => k.kid === kid);
  const publicPem = (await exportSPKI(await importJWK(published, 'ES256') as CryptoKey));
  for (const secret of [publicPem, JSON.stringify(published)]) {
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' }).sign(new TextEncoder().encode(secret));
    assertProblem(await probe(bearer(hs)), 401, 'invalid_token');
  }

  const theirs = await generateKeyPair('ES256');
  for (const forgedHeader of [{ kid }, { kid: 'theirs', jku: 'https://attacker.example/jwks.json' }, { kid, jwk: await exportJWK(theirs.publicKey) }]) {
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...forgedHeader }).sign(theirs.privateKey);
    assertProblem(await probe(bearer(forged)), 401, 'invalid_token');
  }
  assert.equal((await probe(bearer(token))).statusCode, 200, 'the genuine token still passes');
});
