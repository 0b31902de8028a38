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
      app.post(
        '/nested',
        { schema: { body: Type.Object({ bets: Type.Array(Type.Object({ amount: Type.Number({ minimum: 0 }), kind: Type.Union([Type.Literal('win'), Type.Literal('place')]) })) }, { additionalProperties: false }) } },
        async (request) => request.body,
      );
      app.get(
        '/query',
        { schema: { querystring: Type.Object({ from: Type.String({ format: 'date' }), limit: Type.Optional(Type.String({ maxLength: 4 })) }) } },
        async (request) => request.query,
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
  assert.deepEqual(body.errors, [{ field: 'body/count', message: 'is required' }]);
  assert.equal(body.detail, 'body field "count" is required');
});

test('messages are in our words and name the parameter: location, then the path with [index] and .name', async () => {
  const missing = assertProblem(await ctx.app.inject({ method: 'GET', url: '/query' }), 400, 'validation_failed');
  assert.equal(missing.detail, 'querystring parameter "from" is required');
  assert.deepEqual(missing.errors, [{ field: 'querystring/from', message: 'is required' }]);
  const wrong = assertProblem(await ctx.app.inject({ method: 'GET', url: '/query?from=2024-13-01&limit=12345' }), 400, 'validation_failed');
  assert.equal(wrong.detail, 'querystring parameter "from" must be a date YYYY-MM-DD; querystring parameter "limit" must be at most 4 characters long');
  const bets = [{ amount: 1, kind: 'win' }, { amount: 2, kind: 'win' }, { amount: 3, kind: 'win' }, { amount: -1, kind: 'show' }];
  const nested = assertProblem(await ctx.app.inject({ method: 'POST', url: '/nested', payload: { bets } }), 400, 'validation_failed');
  assert.equal(nested.detail, 'body field "bets[3].amount" must be at least 0; body field "bets[3].kind" must be one of "win", "place"');
  assert.deepEqual(nested.errors, [
    { field: 'body/bets/3/amount', message: 'must be at least 0' },
    { field: 'body/bets/3/kind', message: 'must be one of "win", "place"' },
  ]);
  const types = assertProblem(await ctx.app.inject({ method: 'POST', url: '/echo', payload: { name: 7, count: 1.5 } }), 400, 'validation_failed');
  assert.equal(types.detail, 'body field "name" must be a string; body field "count" must be an integer');
  assert.doesNotMatch(JSON.stringify([missing, wrong, nested, types]), /must have required property|must NOT|must be >=/);
});

test('malformed JSON → 400 malformed_json', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"name": ' });
  assertProblem(res, 400, 'malformed_json');
});

test('an unsupported content type → 415 naming it and what to send', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
  const body = assertProblem(res, 415, 'unsupported_media_type');
  assert.equal(body.detail, 'Content-Type "application/xml" is not accepted: send the body as application/json');
});

test('a body over the limit → 413 naming the limit', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/echo', payload: { name: 'x'.repeat(5000), count: 1 } });
  const body = assertProblem(res, 413, 'payload_too_large');
  assert.equal(body.detail, 'the body is larger than this route takes: at most 2048 bytes');
});

test('an unexpected error → generic 500 without SQL or stack', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/boom' });
  const body = assertProblem(res, 500, 'internal_error');
  assert.doesNotMatch(res.body, /no_such_table|SELECT|at .*\.ts/);
  assert.equal(body.detail, 'an unexpected error occurred; it has been logged');
});
