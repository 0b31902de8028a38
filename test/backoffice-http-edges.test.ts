// The back-office endpoint's rules at its edges: who is asking is decided for every request that
// is not a WebSocket handshake, whatever headers it carries; and a handshake to a path that serves
// no WebSocket is answered and its socket closed.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { BACKOFFICE, backofficeClient, codes, GET_BETS, type BackofficeClient, type GraphqlBody } from './helpers/backoffice.ts';

let ctx: TestContext;
let client: BackofficeClient;
let base: string;
before(async () => {
  ctx = await createTestApp();
  client = await backofficeClient(ctx);
  await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 2 });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
after(() => ctx.close());

/** A POST over a real socket (fetch refuses an Upgrade header): status and JSON body. */
function postRaw(headers: Record<string, string>, body: unknown): Promise<{ status: number; body: GraphqlBody }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${BACKOFFICE}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

test('a POST with an Upgrade header but no handshake is no subscription: without x-api-key it is 401, never run (nor a 500)', async () => {
  const upgrade = { upgrade: 'websocket' };
  const queries = [
    { query: '{ __typename }' },
    { query: GET_BETS, variables: { input: { tenant: { ids: [client.tenantId] } } }, operationName: 'GetBets' },
    { query: `mutation { cancelBet(bet: {id: "00000000-0000-4000-8000-000000000000", tenant_id: "${client.tenantId}"}) { id } }` },
  ];
  for (const body of queries) {
    const answer = await postRaw(upgrade, body);
    assert.deepEqual([answer.status, codes(answer.body), answer.body.errors?.[0]?.extensions.reason, answer.body.data],
      [401, ['UNAUTHENTICATED'], 'api_key_missing', null], JSON.stringify(answer.body).slice(0, 300));
  }
  // With its key and token it is an ordinary request.
  const ok = await postRaw({ ...upgrade, ...client.headers }, queries[1]);
  assert.deepEqual([ok.status, ok.body.data?.getBets.bets.length], [200, 2], JSON.stringify(ok.body).slice(0, 300));
});

test('a subscription sent over HTTP is a 400 saying it is served over WebSocket, not a 500', async () => {
  const subscriptions = [
    { query: 'subscription { betUpdated { bet_id status } }' },
    { query: `subscription S { betUpdated(tenant_ids: ["${client.tenantId}"]) { bet { id } } }`, operationName: 'S' },
    { query: 'query Q { __typename } subscription S { betUpdated { bet_id } }', operationName: 'S' },
  ];
  for (const body of subscriptions) {
    const answer = await postRaw(client.headers, body);
    assert.deepEqual([answer.status, codes(answer.body), answer.body.data], [400, ['BAD_REQUEST'], null], JSON.stringify(answer.body).slice(0, 300));
    assert.match(answer.body.errors![0]!.message, /WebSocket/);
  }
  // The query of the same document still runs.
  const query = await postRaw(client.headers, { query: subscriptions[2]!.query, operationName: 'Q' });
  assert.deepEqual([query.status, query.body.data], [200, { __typename: 'Query' }]);
});

test('a GET naming no operation of its query (unknown, or none among several) is 400 GRAPHQL_VALIDATION_FAILED, as a POST is, not a 500', async () => {
  const get = (params: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `${BACKOFFICE}?${new URLSearchParams(params)}`, headers: client.headers });
  const cases: Array<Record<string, string>> = [{ query: '{ __typename }', operationName: 'Nope' }, { query: 'query A { __typename } query B { __typename }' }];
  for (const params of cases) {
    const res = await get(params);
    const body = res.json() as GraphqlBody;
    assert.deepEqual([res.statusCode, codes(body), body.data], [400, ['GRAPHQL_VALIDATION_FAILED'], null], res.body.slice(0, 300));
    const posted = await postRaw(client.headers, params);
    assert.deepEqual([posted.status, codes(posted.body)], [400, ['GRAPHQL_VALIDATION_FAILED']]);
    assert.equal(body.errors![0]!.message, posted.body.errors![0]!.message, 'the same words either way');
  }
  const named = await get({ query: 'query A { __typename } query B { __typename }', operationName: 'B' });
  assert.deepEqual([named.statusCode, (named.json() as GraphqlBody).data], [200, { __typename: 'Query' }]);
});

test('a WebSocket handshake to a path that serves none is answered over HTTP and its socket closed, not left open for ever', async () => {
  const { port } = new URL(base);
  for (const [path, status] of [['/nowhere', 404], ['/public/bets', 401], ['/openapi.json', 200]] as const) {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk) => { answer += chunk; });
    const closed = new Promise<boolean>((resolve) => {
      socket.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 2000);
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n`
      + 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    const wasClosed = await closed;
    socket.destroy();
    assert.ok(answer.startsWith(`HTTP/1.1 ${status} `), `${path}: ${answer.slice(0, 40)}`);
    assert.ok(wasClosed, `${path}: the server closed the socket after its answer`);
  }
});
