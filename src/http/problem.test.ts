// The error handler: every failure of a REST route is RFC 9457 problem+json with the right
// status, and nothing internal (SQL, stack) leaks.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Type } from 'typebox';
import { createTestApp, type TestContext } from '../../test/helpers/app.ts';

let ctx: TestContext;

before(async () => {
  ctx = await createTestApp({ WAGERLINE_BODY_LIMIT_BYTES: '2048' }, {
    routes: (app) => {
      app.post(
        '/echo',
        { schema: { body: Type.Object({ name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }) }) } },
        async (request) => request.body,
      );
      app.get('/boom', async () => {
        await ctx.db.pool.query('SELECT * FROM no_such_table_secret_name');
      });
    },
  });
});
after(() => ctx.close());

function assertProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
  assert.equal(res.statusCode, status);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.type, `urn:wagerline:problem:${code}`);
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  return body;
}

test('schema violations → 400 validation_failed listing every field', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', payload: { name: '', count: 0 } });
  const body = assertProblem(res, 400, 'validation_failed');
  const fields = body.errors.map((e: { field: string }) => e.field).sort();
  assert.deepEqual(fields, ['body/count', 'body/name']);
});

test('a missing field is named', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', payload: { name: 'x' } });
  const body = assertProblem(res, 400, 'validation_failed');
  assert.deepEqual(body.errors.map((e: { field: string }) => e.field), ['body/count']);
});

test('malformed JSON → 400 malformed_json', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"name": ' });
  assertProblem(res, 400, 'malformed_json');
});

test('an unsupported content type → 415', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
  assertProblem(res, 415, 'unsupported_media_type');
});

test('a body over the limit → 413', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', payload: { name: 'x'.repeat(5000), count: 1 } });
  assertProblem(res, 413, 'payload_too_large');
});

test('an unexpected error → generic 500 without SQL or stack', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/boom' });
  const body = assertProblem(res, 500, 'internal_error');
  assert.doesNotMatch(res.body, /no_such_table|SELECT|at .*\.ts/);
  assert.equal(body.detail, 'an unexpected error occurred; it has been logged');
});
