// No type coercion on any route: a body field of the wrong type, or an array-wrapped value, is a
// 400, and a query parameter repeated (an array where one value belongs) is a 400. The table must
// name every route that takes a body or a query, so a new route cannot be left out.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBet } from './factories/bet-factory.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';

let ctx: TestContext;
let client: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  client = await seedClient(ctx, { scopes: ['upload', 'catalog', 'admin', 'backoffice', 'platform'] });
});
after(() => ctx.close());

type Case = { payload?: () => unknown; query?: string; expect: (body: Record<string, unknown>) => void };
const problem = (body: Record<string, unknown>) => assert.equal(body.code, 'validation_failed');
const graphqlError = (body: Record<string, unknown>) => assert.ok(Array.isArray(body.errors) || typeof body.code === 'string', JSON.stringify(body));
const RACE = '/catalog/meetings/{meeting_id}/races/{race_number}';
const RUNNER = `${RACE}/runners/{runner}`;
const BET = '/admin/tenants/{tenant_id}/bets/{bet_id}';
const upload = (over: Record<string, unknown>) => ({ meeting_id: 1, race_number: 1, bets: [buildBet({ id: 'c-1' })], ...over });

const TABLE: Record<string, Case[]> = {
  'POST /oauth/token': [
    { payload: () => ({ grant_type: ['client_credentials'], client_id: client.client.client_id, client_secret: client.client.client_secret }), expect: (b) => assert.equal(b.error, 'invalid_request') },
    { payload: () => ({ grant_type: 'client_credentials', client_id: [client.client.client_id], client_secret: client.client.client_secret }), expect: (b) => assert.equal(b.error, 'invalid_request') },
    { payload: () => ({ grant_type: 'client_credentials', client_id: client.client.client_id, client_secret: client.client.client_secret, scope: ['upload'] }), expect: (b) => assert.equal(b.error, 'invalid_request') },
  ],
  'POST /public/uploadRace': [{ payload: () => upload({ race_number: [1] }), expect: problem }, { payload: () => upload({ bets: [buildBet({ id: [7] })] }), expect: problem }],
  'POST /public/uploadRaceV2': [{ payload: () => upload({ meeting_id: [1] }), expect: problem }, { payload: () => upload({ bets: [buildBet({ id: ['c-1'] })] }), expect: problem }],
  'GET /public/bets': [{ query: 'meeting_id=1&race_number=1&limit=5&limit=6', expect: problem }, { query: 'meeting_id=1&meeting_id=2&race_number=1', expect: problem }],
  'GET /reports/turnover': [{ query: 'from=2024-01-01&from=2024-01-02&to=2024-01-03', expect: problem }],
  'GET /reports/late-uploads': [{ query: 'from=2024-01-01&to=2024-01-03&to=2024-01-04', expect: problem }],
  'POST /catalog/meetings': [{ payload: () => ({ meeting_id: ['900001'], date: '2026-11-21', venue: 'V', jurisdiction: 'VIC', code: 'T' }), expect: problem }],
  [`PUT ${RUNNER}/price`]: [{ payload: () => ({ win: [3.5] }), expect: problem }, { payload: () => ({ win: true }), expect: problem }],
  [`POST ${RUNNER}/scratch`]: [{ payload: () => ({ win_deduction: [5] }), expect: problem }],
  [`PUT ${RACE}/status`]: [{ payload: () => ({ status: ['closed'] }), expect: problem }],
  [`POST ${RACE}/result`]: [
    { payload: () => ({ placings: '[[1]]' }), expect: problem }, { payload: () => ({ placings: [['1']] }), expect: problem },
    { payload: () => ({ placings: [[1]], interim: 'true' }), expect: problem }, { payload: () => ({ placings: [[1]], dividends: { exacta: '30' } }), expect: problem },
  ],
  'PUT /catalog/place-terms/{jurisdiction}': [{ payload: () => ({ terms: [{ min_starters: '8', places: 3 }] }), expect: problem }, { payload: () => ({ terms: { min_starters: 8, places: 3 } }), expect: problem }],
  [`POST ${BET}/cancel`]: [{ payload: () => ({ reason: ['late'] }), expect: problem }],
  [`POST ${BET}/cash-out`]: [{ payload: () => ({ amount: ['12.50'] }), expect: problem }, { payload: () => ({ amount: true }), expect: problem }],
  [`POST ${BET}/adjust`]: [{ payload: () => ({ amount: { dollars: 5 }, reason: 'x' }), expect: problem }, { payload: () => ({ amount: '5', reason: ['x'] }), expect: problem }],
  'PUT /admin/tenants/{tenant_id}/wallet': [
    { payload: () => ({ url: 'http://127.0.0.1:9', auth: 'api_key', api_key: 'k', verify: 'false' }), expect: problem },
    { payload: () => ({ url: 'http://127.0.0.1:9', auth: 'api_key', api_key: 'k', verify: false, concurrency: '5' }), expect: problem },
  ],
  'PUT /admin/tenants/{tenant_id}/auth': [{ payload: () => ({ mode: ['custom'] }), expect: problem }],
  'PUT /admin/tenants/{tenant_id}/limits': [{ payload: () => ({ max_stake: 500 }), expect: problem }, { payload: () => ({ max_stake: ['500'] }), expect: problem }],
  'PUT /admin/tenants/{tenant_id}/timezone': [{ payload: () => ({ timezone: ['Australia/Sydney'] }), expect: problem }, { payload: () => ({ timezone: 10 }), expect: problem }],
  'POST /admin/tenants/{tenant_id}/clients': [{ payload: () => ({ scopes: 'upload' }), expect: problem }, { payload: () => ({ scopes: ['upload'], name: ['x'] }), expect: problem }],
  'POST /admin/tenants/{tenant_id}/wallet-calls/{call_id}/resolve': [{ payload: () => ({ note: ['settled'] }), expect: problem }, { payload: () => ({ note: 5 }), expect: problem }],
  'POST /admin/tenants': [{ payload: () => ({ name: ['Brand'] }), expect: problem }, { payload: () => ({ name: 'Brand', currency: ['AUD'] }), expect: problem }],
  'PUT /admin/clients/{client_id}/grants': [{ payload: () => ({ tenants: '00000000-0000-4000-8000-000000000000' }), expect: problem }],
  // GraphQL's own typing: a value of the wrong type is a GraphQL error with a code, never coerced.
  'POST /graphql': [{ payload: () => ({ query: ['{ __typename }'] }), expect: graphqlError }, { payload: () => ({ query: '{ __typename }', variables: [1] }), expect: graphqlError }],
  'GET /graphql': [{ query: 'query=%7B__typename%7D&query=%7B__typename%7D', expect: graphqlError }],
  'POST /backoffice/query': [
    { payload: () => ({ query: ['{ __typename }'] }), expect: graphqlError },
    { payload: () => ({ query: '{ __typename }', variables: [1] }), expect: graphqlError },
    { payload: () => ({ query: 'query Q($l: Int) { getBets(input: {tenant: {ids: []}, pagination: {limit: $l}}) { bets { id } } }', variables: { l: '5' } }), expect: graphqlError },
    { payload: () => ({ query: '{ getBets(input: {tenant: {ids: "x"}, pagination: {limit: "5"}}) { bets { id } } }' }), expect: graphqlError },
  ],
  'GET /backoffice/query': [{ query: 'query=%7B__typename%7D&query=%7B__typename%7D', expect: graphqlError }],
};

test('the table names every route of the app that takes a body or a query', async () => {
  const doc = (await ctx.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { requestBody?: unknown; parameters?: Array<{ in: string }> }>> };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
    .filter(([, op]) => op.requestBody || op.parameters?.some((p) => p.in === 'query'))
    .map(([method]) => `${method.toUpperCase()} ${path}`));
  assert.deepEqual(routes.sort(), Object.keys(TABLE).sort());
});

for (const [route, cases] of Object.entries(TABLE)) {
  test(`${route}: a value of the wrong type or wrapped in an array is a 400`, async () => {
    const [method, template] = route.split(' ') as ['GET' | 'POST' | 'PUT', string];
    const url = template.replace('{meeting_id}', '900001').replace('{race_number}', '1').replace('{runner}', '1').replace('{jurisdiction}', 'VIC')
      .replace('{tenant_id}', client.tenant.tenant_id).replace('{bet_id}', '00000000-0000-4000-8000-000000000000')
      .replace('{call_id}', '00000000-0000-4000-8000-000000000000').replace('{client_id}', client.client.client_id);
    for (const c of cases) {
      const payload = c.payload ? JSON.stringify(c.payload()) : undefined;
      const res = await ctx.app.inject({
        method, url: c.query ? `${url}?${c.query}` : url, payload,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}), ...(route.includes('oauth') ? {} : client.auth),
          ...(route.includes('backoffice') ? { 'x-api-key': client.client.client_id } : {}),
        },
      });
      assert.equal(res.statusCode, 400, `${route} ${payload ?? c.query}: ${res.body}`);
      c.expect(res.json());
    }
  });
}
