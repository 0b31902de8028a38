import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { createTestApp, type TestContext } from '../../test/helpers/app.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

test('GET /healthz answers ok', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { status: 'ok' });
  assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('GET /readyz is ready on a migrated database', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { status: 'ready' });
});

test('GET /readyz is 503 problem+json when a migration is missing', async () => {
  await ctx.db.pool.query("DELETE FROM schema_migrations WHERE name = '0001_foundation'");
  try {
    const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    assert.match(res.json().detail, /0001_foundation/);
  } finally {
    await ctx.db.pool.query("INSERT INTO schema_migrations (name, run_on) VALUES ('0001_foundation', now())");
  }
});

test('unknown routes are 404 problem+json', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/no/such/route?x=1' });
  assert.equal(res.statusCode, 404);
  const body = res.json();
  assert.equal(body.code, 'not_found');
  assert.equal(body.status, 404);
  assert.equal(body.instance, '/no/such/route');
  assert.equal(body.type, 'urn:wagerline:problem:not_found');
});

test('GET /metrics exposes request counts by route and Node process metrics', async () => {
  await ctx.app.inject({ method: 'GET', url: '/healthz' });
  const res = await ctx.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
  assert.match(res.body, /http_request_duration_seconds_bucket\{/);
  assert.match(res.body, /process_cpu_user_seconds_total/);
});

test('GET /openapi.json is an OpenAPI 3.1 document listing the token endpoint', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.paths['/oauth/token'].post);
  const docs = await ctx.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(docs.statusCode, 200);
  assert.match(docs.body, /swagger/i);
});

test('the OpenAPI document shows each route\'s problem+json errors, and the upload body and answer', async () => {
  const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const upload = doc.paths['/public/uploadRaceV2'].post;
  assert.deepEqual(Object.keys(upload.responses).sort(), ['200', '400', '401', '403', '409', '413', '415']);
  assert.match(upload.responses['409'].description, /^tenant_misconfigured: .*tenant set-zone/);
  const problem = upload.responses['400'].content['application/problem+json'].schema;
  assert.ok(problem.properties.code && problem.properties.errors, JSON.stringify(problem));
  const bets = upload.requestBody.content['application/json'].schema.properties.bets;
  // The limits the validator applies (docs/upload.md), as an integrator's generated client reads them.
  const bet = JSON.stringify(bets.items.properties);
  for (const limit of ['"maximum":99', '"maximum":9999', '"type":"null"']) assert.ok(bet.includes(limit), limit);
  assert.ok(bets.items.properties.user_id.anyOf.some((s: { type: string }) => s.type === 'integer'), 'user_id may be an integer');
  for (const path of ['/public/bets', '/reports/turnover', '/reports/late-uploads']) {
    assert.deepEqual(Object.keys(doc.paths[path].get.responses).sort(), ['200', '400', '401', '403'], path);
  }
});

test('responses carry security headers', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.ok(res.headers['strict-transport-security']);
});

test('GET /readyz failing probe after probe logs the change of state once, without a stack, and the recovery once', async () => {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
  const logged = await createTestApp({}, { logger: { level: 'info', stream } });
  const said = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => !/^(incoming request|request completed)$/.test(String(l.msg)));
  try {
    assert.equal((await logged.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    await logged.db.pool.query("DELETE FROM schema_migrations WHERE name = '0001_foundation'");
    // A load balancer probing every second through an outage.
    for (let probe = 0; probe < 3; probe++) assert.equal((await logged.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
    await logged.db.pool.query("INSERT INTO schema_migrations (name, run_on) VALUES ('0001_foundation', now())");
    for (let probe = 0; probe < 2; probe++) assert.equal((await logged.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    assert.deepEqual(said().map((l) => [l.level, l.msg, l.reason]), [
      [40, 'not ready', 'migrations not applied: 0001_foundation'],
      [30, 'ready again', undefined],
    ]);
    assert.doesNotMatch(lines.join(''), /"stack"|\bat .+\.ts/);
  } finally {
    await logged.close();
  }
});
