// Who may use POST /backoffice/query: x-api-key on every request (refused with 401 before the body
// is read or any resolver runs), the same client's bearer token with the backoffice scope for bets,
// GET for queries only, and introspection off by default.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { BACKOFFICE, backofficeClient, codes, GET_BETS, post, type BackofficeClient, type GraphqlBody } from './helpers/backoffice.ts';

let ctx: TestContext;
let client: BackofficeClient;
let betId: string;
before(async () => {
  ctx = await createTestApp();
  client = await backofficeClient(ctx);
  [betId] = await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 1 });
});
after(() => ctx.close());

const input = () => ({ input: { tenant: { ids: [client.tenantId] } } });
const CANCEL = 'mutation CancelBet($bet: BetRef!) { cancelBet(bet: $bet, reason: "auth test") { id status } }';
const status = async () => (await ctx.db.pool.query<{ status: string }>('SELECT status FROM bets WHERE bet_id = $1', [betId])).rows[0]!.status;

function refused(res: { statusCode: number; json(): unknown }, http: number, code: string, reason?: string) {
  const body = res.json() as GraphqlBody;
  assert.equal(res.statusCode, http, JSON.stringify(body));
  assert.equal(body.data, null);
  assert.deepEqual(codes(body), [code]);
  if (reason) assert.equal(body.errors![0]!.extensions.reason, reason);
}

test('no x-api-key, or one naming no back-office client: 401 UNAUTHENTICATED before anything runs', async () => {
  const other = await ctx.tenants.createClient({ tenantId: client.tenantId, scopes: ['upload'], agencies: ['TAB'] });
  const revoked = await backofficeClient(ctx, { tenantId: client.tenantId });
  await ctx.tenants.revokeClient(revoked.clientId);
  const cases: Array<[Record<string, string>, string]> = [
    [{ authorization: client.headers.authorization! }, 'api_key_missing'],
    [{ ...client.headers, 'x-api-key': 'wl_nobody' }, 'api_key_unknown'],
    [{ ...client.headers, 'x-api-key': other.client_id }, 'api_key_unknown'],   // a client without the backoffice scope
    [{ ...client.headers, 'x-api-key': revoked.clientId }, 'api_key_unknown'],
    [{ ...client.headers, 'x-api-key': '' }, 'api_key_missing'],
  ];
  for (const [headers, reason] of cases) {
    const { res } = await post(ctx, headers, CANCEL, { bet: { id: betId, tenant_id: client.tenantId } }, 'CancelBet');
    refused(res, 401, 'UNAUTHENTICATED', reason);
  }
  assert.equal(await status(), 'accepted', 'no resolver ran');
  // Refused before the body is read: a broken body is still a 401, not a 400.
  const broken = await ctx.app.inject({ method: 'POST', url: BACKOFFICE, headers: { 'content-type': 'application/json' }, payload: '{"query": ' });
  refused(broken, 401, 'UNAUTHENTICATED', 'api_key_missing');
});

test('getBets and cancelBet need a bearer token: missing, malformed or not ours is UNAUTHENTICATED', async () => {
  const { 'x-api-key': apiKey } = client.headers;
  for (const [authorization, reason] of [[undefined, 'token_missing'], ['Basic abc', 'token_invalid'], ['Bearer not.a.token', 'token_invalid'], ['Bearer ', 'token_invalid']] as const) {
    const headers = { 'x-api-key': apiKey!, ...(authorization !== undefined && { authorization }) };
    const { res } = await post(ctx, headers, GET_BETS, input(), 'GetBets');
    refused(res, 401, 'UNAUTHENTICATED', reason);
    const cancel = await post(ctx, headers, CANCEL, { bet: { id: betId, tenant_id: client.tenantId } });
    refused(cancel.res, 401, 'UNAUTHENTICATED', reason);
  }
  assert.equal(await status(), 'accepted');
});

test('a token of another client than x-api-key is UNAUTHENTICATED, even of the same tenant', async () => {
  const sibling = await backofficeClient(ctx, { tenantId: client.tenantId });
  const { res } = await post(ctx, { ...client.headers, authorization: `Bearer ${sibling.token}` }, GET_BETS, input(), 'GetBets');
  refused(res, 401, 'UNAUTHENTICATED', 'token_client_mismatch');
});

test('an expired token is UNAUTHENTICATED (token_expired); a fresh one works again', async () => {
  const fresh = await backofficeClient(ctx, { tenantId: client.tenantId });
  ctx.clock.advance((ctx.config.WAGERLINE_TOKEN_TTL_SECONDS + 1) * 1000);
  try {
    const { res } = await post(ctx, fresh.headers, GET_BETS, input(), 'GetBets');
    refused(res, 401, 'UNAUTHENTICATED', 'token_expired');
    const { access_token } = await ctx.tokens.grant(fresh.clientId, fresh.clientSecret);
    const again = await post(ctx, { ...fresh.headers, authorization: `Bearer ${access_token}` }, GET_BETS, input(), 'GetBets');
    assert.equal(again.res.statusCode, 200, again.res.body);
    assert.equal(again.body.data!.getBets.pagination.count, 1);
  } finally {
    ctx.clock.advance(-(ctx.config.WAGERLINE_TOKEN_TTL_SECONDS + 1) * 1000);
  }
});

test('a token of the client without the backoffice scope is FORBIDDEN', async () => {
  const wide = await backofficeClient(ctx, { tenantId: client.tenantId, scopes: ['backoffice', 'upload'] });
  const { access_token } = await ctx.tokens.grant(wide.clientId, wide.clientSecret, 'upload');
  const headers = { ...wide.headers, authorization: `Bearer ${access_token}` };
  refused((await post(ctx, headers, GET_BETS, input(), 'GetBets')).res, 403, 'FORBIDDEN', 'scope');
  refused((await post(ctx, headers, CANCEL, { bet: { id: betId, tenant_id: client.tenantId } })).res, 403, 'FORBIDDEN', 'scope');
  assert.equal(await status(), 'accepted');
});

test('GET carries queries; a mutation over GET is refused with 405 and changes nothing', async () => {
  const query = (q: string, variables: unknown, operationName: string) =>
    `${BACKOFFICE}?${new URLSearchParams({ query: q, variables: JSON.stringify(variables), operationName })}`;
  const ok = await ctx.app.inject({ method: 'GET', url: query(GET_BETS, input(), 'GetBets'), headers: client.headers });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal((ok.json() as GraphqlBody).data!.getBets.bets[0].id, betId);
  const mutation = await ctx.app.inject({ method: 'GET', url: query(CANCEL, { bet: { id: betId, tenant_id: client.tenantId } }, 'CancelBet'), headers: client.headers });
  refused(mutation, 405, 'METHOD_NOT_ALLOWED');
  assert.equal(mutation.headers.allow, 'POST');
  assert.equal(await status(), 'accepted');
});

test('__typename needs only the x-api-key; introspection is off unless configured', async () => {
  const typename = await post(ctx, { 'x-api-key': client.clientId }, '{ __typename }');
  assert.deepEqual([typename.res.statusCode, typename.body.data], [200, { __typename: 'Query' }]);
  const schema = await post(ctx, client.headers, '{ __schema { types { name } } }');
  assert.equal(schema.res.statusCode, 400);
  assert.ok(codes(schema.body).length > 0 && codes(schema.body).every((c) => c === 'GRAPHQL_VALIDATION_FAILED'), schema.res.body);
  assert.match(schema.body.errors![0]!.message, /introspection/i);
  const open = await createTestApp({ WAGERLINE_BACKOFFICE_INTROSPECTION: 'on' });
  try {
    const c = await backofficeClient(open);
    const { res, body } = await post(open, c.headers, '{ __schema { queryType { name } mutationType { name } } }');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(body.data, { __schema: { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } } });
  } finally {
    await open.close();
  }
});
