// POST /oauth/token: every success and error row of RFC 6749 §4.4/§5.2 as wagerline applies them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { AppError } from '../../errors.ts';
import { createTokenService, TokenError } from './tokens.service.ts';

let ctx: TestContext;
let client: { client_id: string; client_secret: string };

before(async () => {
  ctx = await createTestApp();
  ({ client } = await seedClient(ctx, { scopes: ['upload', 'report'] }));
});
after(() => ctx.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

function form(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

function json(fields: Record<string, unknown>, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/oauth/token', headers, payload: fields });
}

function assertToken(res: Awaited<ReturnType<typeof form>>, scope: string) {
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['cache-control'], 'no-store');
  const body = res.json();
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.expires_in, 3600);
  assert.equal(body.scope, scope);
  assert.match(body.access_token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  return body.access_token as string;
}

function assertOAuthError(res: Awaited<ReturnType<typeof form>>, status: number, error: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, 'string');
  assert.ok(body.error_description.length > 0);
  if (status === 401) assert.match(String(res.headers['www-authenticate']), /^Basic /);
}

describe('successful grants', () => {
  test('HTTP Basic with client_id also in the form (spec 4.2)', async () => {
    const res = await form(
      { grant_type: 'client_credentials', client_id: client.client_id },
      { authorization: basic(client.client_id, client.client_secret) },
    );
    assertToken(res, 'upload report');
  });

  test('HTTP Basic without client_id in the form', async () => {
    const res = await form({ grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret) });
    assertToken(res, 'upload report');
  });

  test('client_secret_post as a form (spec 4.4)', async () => {
    const res = await form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    assertToken(res, 'upload report');
  });

  test('client_secret_post as JSON', async () => {
    const res = await json({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    assertToken(res, 'upload report');
  });

  test('scope narrows the granted scopes, and the token carries client, tenant and scope', async () => {
    const res = await json({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'report' });
    const token = assertToken(res, 'report');
    const principal = await ctx.tokens.verify(token);
    assert.equal(principal.clientId, client.client_id);
    assert.deepEqual(principal.scopes, ['report']);
    const [header] = token.split('.');
    assert.ok(JSON.parse(Buffer.from(header!, 'base64url').toString()).kid);
  });
});

describe('errors in RFC 6749 §5.2 shape', () => {
  test('wrong secret → 401 invalid_client', async () => {
    assertOAuthError(await form({ grant_type: 'client_credentials' }, { authorization: basic(client.client_id, 'wrong') }), 401, 'invalid_client');
  });

  test('unknown client → 401 invalid_client', async () => {
    assertOAuthError(await json({ grant_type: 'client_credentials', client_id: 'wl_nobody', client_secret: 'x' }), 401, 'invalid_client');
  });

  test('no client authentication → 401 invalid_client', async () => {
    assertOAuthError(await form({ grant_type: 'client_credentials' }), 401, 'invalid_client');
  });

  test('Basic header that is not id:secret → 401 invalid_client', async () => {
    const res = await form({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` });
    assertOAuthError(res, 401, 'invalid_client');
  });

  test('missing grant_type → 400 invalid_request', async () => {
    assertOAuthError(await form({ client_id: client.client_id, client_secret: client.client_secret }), 400, 'invalid_request');
  });

  test('two authentication methods at once → 400 invalid_request', async () => {
    const res = await form(
      { grant_type: 'client_credentials', client_secret: client.client_secret },
      { authorization: basic(client.client_id, client.client_secret) },
    );
    assertOAuthError(res, 400, 'invalid_request');
  });

  test('client_id in the form differing from Basic → 400 invalid_request', async () => {
    const res = await form(
      { grant_type: 'client_credentials', client_id: 'someone-else' },
      { authorization: basic(client.client_id, client.client_secret) },
    );
    assertOAuthError(res, 400, 'invalid_request');
  });

  test('an object where a string belongs → 400 invalid_request', async () => {
    assertOAuthError(await json({ grant_type: 'client_credentials', client_id: { id: 1 }, client_secret: 'x' }), 400, 'invalid_request');
  });

  test('malformed JSON → 400 invalid_request', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' });
    assertOAuthError(res, 400, 'invalid_request');
  });

  test('an unsupported content type, no body, or JSON that is no object → 400 invalid_request saying what the body must be', async () => {
    const requests = [
      { headers: { 'content-type': 'text/plain' }, payload: 'grant_type=client_credentials' },
      {},
      { headers: { 'content-type': 'application/json' }, payload: '[1]' },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ method: 'POST', url: '/oauth/token', ...request });
      assertOAuthError(res, 400, 'invalid_request');
      assert.match(res.json().error_description, /application\/x-www-form-urlencoded/, res.body);
    }
  });

  test('another grant type → 400 unsupported_grant_type', async () => {
    assertOAuthError(await json({ grant_type: 'password', client_id: client.client_id, client_secret: client.client_secret }), 400, 'unsupported_grant_type');
  });

  test('a scope the client does not have → 400 invalid_scope', async () => {
    const res = await json({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'upload backoffice' });
    assertOAuthError(res, 400, 'invalid_scope');
  });
});

describe('revocation and secret rotation', () => {
  test('a revoked client gets no token, and its tokens are refused after the next refresh', async () => {
    const { client: victim, token } = await seedClient(ctx);
    await ctx.tokens.verify(token); // valid before
    await ctx.tenants.revokeClient(victim.client_id);
    assertOAuthError(await json({ grant_type: 'client_credentials', client_id: victim.client_id, client_secret: victim.client_secret }), 401, 'invalid_client');
    await ctx.tokens.refresh(); // what every process does each WAGERLINE_AUTH_REFRESH_SECONDS (≤ 60)
    await assert.rejects(ctx.tokens.verify(token), /revoked/);
  });

  test('with the background refresh running, a revocation made elsewhere is honoured within the refresh interval', async () => {
    const fast = await createTestApp({ WAGERLINE_AUTH_REFRESH_SECONDS: '1' });
    try {
      await fast.tokens.start();
      const { client: victim, token } = await seedClient(fast);
      await fast.tokens.verify(token);
      // Revoked through the database, as `wagerline client revoke` in another process does.
      await fast.db.pool.query("UPDATE operator_clients SET status = 'revoked', revoked_at = now() WHERE client_id = $1", [victim.client_id]);
      let refused = false;
      for (let i = 0; i < 50 && !refused; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        refused = await fast.tokens.verify(token).then(() => false, () => true);
      }
      assert.ok(refused, 'the token was still accepted 5 s after revocation with a 1 s refresh');
    } finally {
      await fast.close();
    }
  });

  /** A token service on the app's database whose list of revoked clients comes from `revokedClientIds`. */
  const tokensReading = (revokedClientIds: () => Promise<string[]>, options: { refreshSeconds?: number; log?: (message: string, fields?: Record<string, unknown>) => void } = {}) =>
    createTokenService({
      db: ctx.db.pool, box: ctx.box, ttlSeconds: 3600, refreshSeconds: options.refreshSeconds ?? 10, clock: ctx.clock,
      ...(options.log && { log: options.log }),
      clients: { findClientCredentials: (id) => ctx.tenants.findClientCredentials(id), revokedClientIds },
    });

  test('two refreshes in flight: the one that read the database first never undoes the later one', async () => {
    // The background refresh and one started by an unknown kid (or two ticks of a slow database)
    // overlap; their statements may finish in any order.
    const { client: victim } = await seedClient(ctx);
    const held: Array<() => void> = [];
    let holdNext = false;
    const tokens = tokensReading(async () => {
      const ids = await ctx.tenants.revokedClientIds();
      if (holdNext) await new Promise<void>((resolve) => held.push(resolve));
      return ids;
    });
    await tokens.refresh();
    const { access_token } = await tokens.grant(victim.client_id, victim.client_secret);
    holdNext = true;
    const early = tokens.refresh(); // reads the revoked clients before the revocation, answers late
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    holdNext = false;
    await ctx.tenants.revokeClient(victim.client_id);
    await tokens.refresh(); // reads after it
    await assert.rejects(tokens.verify(access_token), /revoked/);
    held[0]!();
    await early;
    await assert.rejects(tokens.verify(access_token), /revoked/, 'a refused token was accepted again');
  });

  test('a token with an unknown kid while the database is down: 503 once, then at most one reload a second', async () => {
    let reads = 0;
    let failing = false;
    const tokens = tokensReading(async () => {
      reads += 1;
      if (failing) throw new Error('connection terminated');
      return ctx.tenants.revokedClientIds();
    });
    await tokens.refresh();
    failing = true;
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unknown = `${part({ alg: 'ES256', kid: 'rotated-elsewhere' })}.${part({ client_id: 'x' })}.c2ln`;
    const before = reads;
    await assert.rejects(tokens.verify(unknown), (e: unknown) => e instanceof AppError && e.code === 'service_unavailable');
    await assert.rejects(tokens.verify(unknown), (e: unknown) => e instanceof TokenError);
    assert.equal(reads - before, 1, 'one reload attempted, not one per request');
  });

  test('a background refresh that fails is logged: revocations stop reaching the process meanwhile', async () => {
    const logged: Array<[string, Record<string, unknown> | undefined]> = [];
    let failing = false;
    const tokens = tokensReading(async () => {
      if (failing) throw new Error('connection terminated');
      return ctx.tenants.revokedClientIds();
    }, { refreshSeconds: 0.02, log: (message, fields) => logged.push([message, fields]) });
    await tokens.start();
    try {
      failing = true;
      for (let i = 0; i < 100 && logged.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.match(logged[0]?.[0] ?? 'nothing logged', /could not be refreshed/);
      assert.match(String(logged[0]?.[1]?.err), /connection terminated/);
    } finally {
      tokens.stop();
    }
  });

  test('after rotate-secret the old secret fails and the new one works', async () => {
    const { client: c } = await seedClient(ctx);
    const { client_secret } = await ctx.tenants.rotateSecret(c.client_id);
    assertOAuthError(await json({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }), 401, 'invalid_client');
    assertToken(await json({ grant_type: 'client_credentials', client_id: c.client_id, client_secret }), 'upload');
  });
});

test('the token endpoint is rate limited per address', async () => {
  const limited = await createTestApp({ WAGERLINE_TOKEN_RATE_LIMIT: '3' });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await limited.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'client_credentials' } });
      statuses.push(res.statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  } finally {
    await limited.close();
  }
});
