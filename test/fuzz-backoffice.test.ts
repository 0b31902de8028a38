// Fuzzing POST /backoffice/query with broken bodies, hostile variables, broken queries and broken
// headers: never a 5xx, every error with a stable extensions.code, never INTERNAL_SERVER_ERROR for
// anything a client sent, a request that never reached a resolver is a 4xx, and a refused cancel
// writes nothing. Replay a failure with FUZZ_SEED (test/helpers/fuzz.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { BACKOFFICE, backofficeClient, type BackofficeClient, type GraphqlBody } from './helpers/backoffice.ts';
import { deepJson, fuzzRuns, hostileValue, nastyString, okShare, tablesFingerprint } from './helpers/fuzz.ts';

let ctx: TestContext;
let client: BackofficeClient;
let bets: string[];
before(async () => {
  ctx = await createTestApp();
  client = await backofficeClient(ctx);
  bets = await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 5 });
});
after(() => ctx.close());

const GET_BETS = 'query GetBets($input: GetBetsInput!) { getBets(input: $input) { bets { id legs { dividend } history { to } } pagination { last_id count } } }';
const CANCEL = 'mutation CancelBet($bet: BetRef!, $reason: String) { cancelBet(bet: $bet, reason: $reason) { id status changed } }';

/** What every answer must be: no 5xx, GraphQL's shape, every error coded, nothing internal. */
function check(res: LightMyRequestResponse): GraphqlBody {
  assert.ok(res.statusCode < 500, `answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, res.body.slice(0, 200));
  const body = res.json() as GraphqlBody;
  for (const e of body.errors ?? []) {
    assert.equal(typeof e.extensions?.code, 'string', `an error without a code: ${JSON.stringify(e).slice(0, 200)}`);
    assert.notEqual(e.extensions.code, 'INTERNAL_SERVER_ERROR', res.body.slice(0, 300));
    assert.ok(!/\bat .+\.(ts|js):\d+|SELECT |INSERT |relation "/.test(e.message), `a message that leaks: ${e.message.slice(0, 200)}`);
  }
  if (res.statusCode >= 400) assert.ok(body.errors?.length, 'a 4xx says why');
  if (body.data == null) assert.ok(body.errors?.length, 'no data without errors');
  return body;
}

const send = (payload: string, headers: Record<string, string> = client.headers) =>
  ctx.app.inject({ method: 'POST', url: BACKOFFICE, headers: { 'content-type': 'application/json', ...headers }, payload });

test('fuzz: bodies that are not a GraphQL request are a 4xx with a code, never a 5xx', async () => {
  const body = fc.oneof(
    nastyString(200),
    fc.constantFrom('', '{', '{"query": ', 'null', '[]', '[{"query": "{ __typename }"}]', '"{ __typename }"', '{"query": null}', '{"query": 5}',
      '{"query": "{ __typename }", "variables": "x"}', '{"query": "{ __typename }", "operationName": 7}', deepJson(5000, '{}')),
    hostileValue.map((v) => JSON.stringify({ query: v })),
    hostileValue.map((v) => JSON.stringify({ query: GET_BETS, variables: v })),
  );
  await fc.assert(fc.asyncProperty(body, async (payload) => {
    const res = await send(payload);
    const answer = check(res);
    if (answer.data == null && !(answer.errors ?? []).some((e) => e.path)) assert.ok(res.statusCode >= 400, res.body.slice(0, 200));
  }), fuzzRuns(200));
});

test('fuzz: hostile getBets inputs answer with a page or coded errors', async () => {
  const share = okShare(0.05);
  // Mostly valid, so the accepting path is tested too; one part or another hostile.
  const often = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<unknown>) => fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: other });
  const id = often(fc.constantFrom(client.tenantId, ...bets), hostileValue);
  const input = fc.record({
    ids: often(fc.constant([client.tenantId]), fc.oneof(fc.array(id, { maxLength: 4 }), hostileValue)),
    bet_ids: fc.option(often(fc.array(fc.constantFrom(...bets), { maxLength: 6 }), fc.oneof(fc.array(id, { maxLength: 6 }), hostileValue)), { freq: 2 }),
    last_id: fc.option(often(fc.constantFrom(...bets), id), { freq: 2 }),
    limit: fc.option(often(fc.integer({ min: 1, max: 1000 }), fc.oneof(fc.integer({ min: -5, max: 2000 }), hostileValue)), { freq: 2 }),
  }).map((r) => ({ tenant: { ids: r.ids, ...(r.bet_ids !== null && { bet_ids: r.bet_ids }) }, pagination: { ...(r.last_id !== null && { last_id: r.last_id }), ...(r.limit !== null && { limit: r.limit }) } }));
  await fc.assert(fc.asyncProperty(input, async (i) => {
    const res = await send(JSON.stringify({ query: GET_BETS, variables: { input: i }, operationName: 'GetBets' }));
    share.count(check(res).data?.getBets ? 200 : 400);
  }), fuzzRuns(200));
  share.check();
});

test('fuzz: hostile cancels are refused with a code and write nothing', async () => {
  const bet = fc.record({ id: fc.oneof(hostileValue, fc.uuid()), tenant_id: fc.oneof(fc.constant(client.tenantId), hostileValue, fc.uuid()) });
  await fc.assert(fc.asyncProperty(bet, fc.option(fc.oneof(nastyString(600), hostileValue)), async (ref, reason) => {
    const before = await tablesFingerprint(ctx.db.pool);
    const res = await send(JSON.stringify({ query: CANCEL, variables: { bet: ref, reason } }));
    const body = check(res);
    assert.ok(body.errors?.length, 'no such bet: refused');
    assert.equal(await tablesFingerprint(ctx.db.pool), before, 'a refused cancel wrote something');
  }), fuzzRuns(100));
});

test('fuzz: broken queries and headers are refused with a code, never a 5xx', async () => {
  const query = fc.oneof(nastyString(120), fc.constantFrom(GET_BETS, CANCEL, '{ getBets { bets { id } } }', 'query { getBets(input: {tenant: {ids: 5}}) { bets { id } } }',
    `{ getBets(input: {tenant: {ids: ["${client.tenantId}"]}, pagination: {limit: 99999999999}}) { bets { id } } }`,
    'subscription { x }', '{ __schema { types { name } } }', 'fragment A on Bet { ...A } { getBets(input: {tenant: {ids: []}}) { bets { ...A } } }'));
  const printable = (s: string) => s.replace(/[^\x20-\x7e]/g, '');
  const headers = fc.record({
    'x-api-key': fc.oneof(fc.constant(client.clientId), nastyString(40).map(printable)),
    authorization: fc.oneof(fc.constant(client.headers.authorization!), nastyString(80).map((s) => `Bearer ${printable(s)}`)),
  });
  await fc.assert(fc.asyncProperty(query, headers, fc.oneof(hostileValue, fc.constant({ input: { tenant: { ids: [client.tenantId] } } })), async (q, h, variables) => {
    check(await send(JSON.stringify({ query: q, variables }), h));
  }), fuzzRuns(200));
});
