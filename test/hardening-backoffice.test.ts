// The back-office endpoint's operational promises: an unexpected failure answers without SQL or a
// stack (and is logged); every request leaves one log line with its client and operation name and
// no credential; Prometheus counts requests and latency by operation.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { backofficeClient, codes, GET_BETS, post, type BackofficeClient } from './helpers/backoffice.ts';

let ctx: TestContext;
let client: BackofficeClient;
const lines: string[] = [];
before(async () => {
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
  ctx = await createTestApp({}, { logger: { level: 'info', stream } });
  client = await backofficeClient(ctx);
  await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 2 });
});
after(() => ctx.close());

const input = () => ({ input: { tenant: { ids: [client.tenantId] } } });
const requestLines = () => lines.map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.msg === 'back-office request');

test('a failing statement answers INTERNAL_SERVER_ERROR without SQL or stack; the logs have the details', async () => {
  const pool = ctx.db.pool;
  const original = pool.query;
  pool.query = ((config: unknown, ...rest: unknown[]) => {
    if (typeof config === 'object' && config !== null && String((config as { name?: string }).name).startsWith('backoffice_bets_page')) {
      return Promise.reject(Object.assign(new Error('relation "bets" does not exist'), { code: '42P01', where: 'SELECT b.* FROM bets' }));
    }
    return (original as (...a: unknown[]) => unknown).apply(pool, [config, ...rest]);
  }) as typeof pool.query;
  lines.length = 0;
  try {
    const { res, body } = await post(ctx, client.headers, GET_BETS, input(), 'GetBets');
    assert.equal(res.statusCode, 500);
    assert.deepEqual(codes(body), ['INTERNAL_SERVER_ERROR']);
    assert.ok(!/relation|SELECT|bets_page|\.ts:\d+|at /.test(res.body.replace('with the request id', '')), res.body);
    assert.equal(res.headers['x-request-id'] !== undefined, true);
    assert.match(lines.join(''), /relation \\"bets\\" does not exist/, 'the cause is logged');
  } finally {
    pool.query = original;
  }
});

test('every request is logged once with its client id, operation name and outcome, never a credential', async () => {
  lines.length = 0;
  await post(ctx, client.headers, GET_BETS, input(), 'GetBets');
  await post(ctx, { 'x-api-key': 'wl_nobody' }, GET_BETS, input(), 'GetBets');
  await post(ctx, client.headers, 'mutation CancelBet { cancelBet(bet: {id: "00000000-0000-4000-8000-000000000000", tenant_id: "' + client.tenantId + '"}) { id } }');
  const logged = requestLines().map((l) => ({ client_id: l.client_id, operation_name: l.operation_name, operation: l.operation, status: l.status, errors: l.errors }));
  assert.deepEqual(logged, [
    { client_id: client.clientId, operation_name: 'GetBets', operation: 'getBets', status: 200, errors: [] },
    { client_id: null, operation_name: null, operation: 'none', status: 401, errors: ['UNAUTHENTICATED'] },
    { client_id: client.clientId, operation_name: null, operation: 'cancelBet', status: 200, errors: ['NOT_FOUND'] },
  ]);
  for (const line of requestLines()) assert.equal(typeof line.reqId, 'string');
  const all = lines.join('');
  assert.ok(!all.includes(client.token.split('.')[2]!), 'no token in the logs');
});

test('metrics count back-office requests and their latency by operation and outcome', async () => {
  await post(ctx, client.headers, GET_BETS, input(), 'GetBets');
  await post(ctx, client.headers, 'query { getBets(input: {tenant: {ids: []}}) { bets { id } } }');
  const metrics = (await ctx.app.inject({ url: '/metrics' })).body;
  assert.match(metrics, /backoffice_requests_total\{operation="getBets",outcome="ok"\} [1-9]/);
  assert.match(metrics, /backoffice_requests_total\{operation="getBets",outcome="BAD_USER_INPUT"\} [1-9]/);
  assert.match(metrics, /backoffice_requests_total\{operation="none",outcome="UNAUTHENTICATED"\} [1-9]/);
  assert.match(metrics, /backoffice_request_duration_seconds_count\{operation="getBets"\} [1-9]/);
});

test('request-level refusals are 4xx with a code: not JSON, another media type, too large, U+0000', async () => {
  const send = (payload: string, type = 'application/json') =>
    ctx.app.inject({ method: 'POST', url: '/backoffice/query', headers: { ...client.headers, 'content-type': type }, payload });
  const cases: Array<[Promise<{ statusCode: number; json(): unknown }>, number, string]> = [
    [send('{"query": '), 400, 'BAD_REQUEST'],
    [send('{ __typename }', 'text/plain'), 400, 'BAD_REQUEST'],
    [send('<query/>', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [send(JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(ctx.config.WAGERLINE_BODY_LIMIT_BYTES) })), 413, 'PAYLOAD_TOO_LARGE'],
    [send(JSON.stringify({ query: 'mutation C($r: String) { cancelBet(bet: {id: "x", tenant_id: "y"}, reason: $r) { id } }', variables: { r: 'a\u0000b' } })), 400, 'BAD_REQUEST'],
    [send(JSON.stringify({ query: '0' })), 400, 'BAD_REQUEST'],
  ];
  for (const [pending, status, code] of cases) {
    const res = await pending;
    assert.deepEqual([res.statusCode, codes(res.json() as never)], [status, [code]], JSON.stringify(res.json()).slice(0, 200));
  }
});

test('413 and 415 say what is wrong: the endpoint\'s limit in bytes; the Content-Type sent and the ones to send', async () => {
  const send = (payload: string, type: string) =>
    ctx.app.inject({ method: 'POST', url: '/backoffice/query', headers: { ...client.headers, 'content-type': type }, payload });
  const errorsOf = (res: { json(): unknown }) => (res.json() as { errors: Array<{ message: string; extensions: { code: string } }> }).errors;
  const tooLarge = await send(JSON.stringify({ query: '{ __typename }', pad: 'x'.repeat(ctx.config.WAGERLINE_BODY_LIMIT_BYTES) }), 'application/json');
  assert.equal(tooLarge.statusCode, 413);
  assert.deepEqual(errorsOf(tooLarge).map((e) => e.message),
    [`the body is larger than this endpoint takes: at most ${ctx.config.WAGERLINE_BODY_LIMIT_BYTES} bytes`]);
  const xml = await send('<query/>', 'application/xml');
  assert.equal(xml.statusCode, 415);
  assert.deepEqual(errorsOf(xml).map((e) => e.message),
    ['Content-Type "application/xml" is not accepted: send the body as application/json, or the query alone as application/graphql']);
  // What the message offers works.
  const graphql = await send('{ __typename }', 'application/graphql');
  assert.deepEqual([graphql.statusCode, graphql.json()], [200, { data: { __typename: 'Query' } }]);
});
