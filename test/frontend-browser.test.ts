// A tenant's web frontend on its own origin calling /graphql from the user's browser (jwt mode,
// docs/frontend.md): the CORS preflight for its headers is answered, and the answers are readable
// from any origin — credentials are bearer tokens in headers, never cookies, so no origin gains
// anything the token does not already give.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { TestContext } from './helpers/app.ts';
import type { TestJwks } from './helpers/jwks.ts';
import { jwtFrontend, type JwtFrontend } from './helpers/jwt-frontend.ts';

let frontend: JwtFrontend;
let ctx: TestContext;
let idp: TestJwks;
let base: string;
let tenantId: string;
const ORIGIN = 'https://www.acme-bet.example';

before(async () => {
  frontend = await jwtFrontend('Browser');
  ({ ctx, idp, tenantId } = frontend);
  base = frontend.base;
});
after(async () => {
  await frontend.close();
});

test('the preflight of a browser POST with Authorization and X-Tenant-Id is allowed', async () => {
  const res = await fetch(`${base}/graphql`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-tenant-id' },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
  const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
  for (const header of ['authorization', 'content-type', 'x-tenant-id', 'x-host-state-user']) assert.ok(allowed.includes(header), header);
  assert.equal(res.headers.get('access-control-allow-credentials'), null, 'no cookies: bearer tokens only');
});

test('answers, refusals included, are readable by the page: Access-Control-Allow-Origin on every /graphql response', async () => {
  const token = await idp.token(randomUUID(), { now: ctx.clock() });
  const post = (headers: Record<string, string>, query: string) => fetch(`${base}/graphql`, {
    method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json', 'x-tenant-id': tenantId, ...headers }, body: JSON.stringify({ query }),
  });
  const ok = await post({ authorization: `Bearer ${token}` }, '{ myBets { hasMore } }');
  assert.deepEqual([ok.status, ok.headers.get('access-control-allow-origin')], [200, '*']);
  assert.match(ok.headers.get('access-control-expose-headers') ?? '', /x-request-id/i);
  const refused = await post({}, '{ myBets { hasMore } }');
  assert.equal(refused.headers.get('access-control-allow-origin'), '*');
  const invalid = await post({ authorization: `Bearer ${token}` }, '{ nope }');
  assert.deepEqual([invalid.status, invalid.headers.get('access-control-allow-origin')], [400, '*']);
});
