// Credentials sent in a URL's query never reach the logs: every logged URL has the values of
// access_token, client_secret, password and the like (any case) replaced by [Redacted].
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { redactUrl } from '../src/http/log.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
const lines: string[] = [];
before(async () => {
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
  ctx = await createTestApp({}, { logger: { level: 'info', stream } });
  client = await seedClient(ctx);
});
after(() => ctx.close());

test('a JWT in the query of /public/bets is not logged; the rest of the URL is', async () => {
  lines.length = 0;
  const res = await ctx.app.inject({ url: `/public/bets?meeting_id=1&race_number=1&access_token=${client.token}`, headers: client.auth });
  assert.equal(res.statusCode, 200, res.body);
  const log = lines.join('');
  assert.ok(lines.length >= 2, 'incoming request and request completed lines');
  assert.ok(!log.includes(client.token), 'token logged');
  assert.ok(!log.includes(client.token.split('.')[2]!), 'token signature logged');
  assert.match(log, /"url":"\/public\/bets\?meeting_id=1&race_number=1&access_token=\[Redacted\]"/);
});

test('every credential-like parameter is redacted, whatever its case or encoding, on any route', async () => {
  lines.length = 0;
  const secrets = ['Access_Token', 'TOKEN', 'client_secret', 'api_key', 'Password', 'refresh_token', 'id_token', 'code', 'client%5Fsecret'];
  const query = secrets.map((name, i) => `${name}=s3cr3t${i}`).join('&');
  await ctx.app.inject({ url: `/healthz?keep=visible&${query}` });
  await ctx.app.inject({ url: `/no/such/route?${query}` });
  const log = lines.join('');
  assert.ok(!/s3cr3t/.test(log), log);
  assert.match(log, /keep=visible/);
});

test('redactUrl keeps URLs without credentials as they are', () => {
  for (const url of ['/healthz', '/public/bets?meeting_id=1&race_number=2', '/x?', '/x?flag', '/x?tokens=1&mytoken=2']) {
    assert.equal(redactUrl(url), url);
  }
  assert.equal(redactUrl('/x?a=1&token=&b=2'), '/x?a=1&token=[Redacted]&b=2');
});

test('matrix parameters of the path are redacted as query parameters are', () => {
  assert.equal(redactUrl('/reports/turnover;client_secret=s3cr3t?from=2024-05-01'), '/reports/turnover;client_secret=[Redacted]?from=2024-05-01');
  assert.equal(redactUrl('/a;Access%5FToken=s3cr3t;keep=1/b;api_key=x'), '/a;Access%5FToken=[Redacted];keep=1/b;api_key=[Redacted]');
  assert.equal(redactUrl('/a;keep=1/b'), '/a;keep=1/b');
});
