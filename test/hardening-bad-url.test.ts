// A path whose %-escapes are malformed or not UTF-8 is refused by the router before any route runs:
// the answer is still a problem document like every other 400, with the request id, and quotes at
// most a short piece of what the client sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
before(async () => {
  ctx = await createTestApp();
});
after(() => ctx.close());

test('a path with a broken or non-UTF-8 %-escape is a 400 problem document', async () => {
  for (const url of ['/%FF', '/admin/tenants/%E0%A4%A', `/public/uploadRaceV2/${'%C3'.repeat(200)}`]) {
    const res = await ctx.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'bad-url-1' } });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/, url);
    const body = res.json();
    assert.equal(body.code, 'bad_request', url);
    assert.equal(body.type, 'urn:wagerline:problem:bad_request', url);
    assert.match(body.detail, /path/, url);
    assert.equal(res.headers['x-request-id'], 'bad-url-1', url);
    assert.ok(res.body.length < 1000, `${url}: the answer stays small (${res.body.length} bytes)`);
  }
});
