// getBets pages: a walk over 2,500 bets of two tenants returns each exactly once, oldest first with
// the bet id breaking ties; the page size is capped; a page costs the same few statements whatever
// its size and whatever fields are asked for (no N+1); a query asking for too much is refused.
import { BET_FIELDS } from './helpers/backoffice-fields.ts';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { insertBulkBets } from './factories/bulk-bets.ts';
import { createTestApp, type TestContext } from './helpers/app.ts';
import { backofficeClient, codes, GET_BETS, post, type BackofficeClient } from './helpers/backoffice.ts';

let ctx: TestContext;
let client: BackofficeClient;
let other: string;
let all: string[];
before(async () => {
  ctx = await createTestApp();
  client = await backofficeClient(ctx);
  other = (await ctx.tenants.createTenant({ name: 'Second brand' })).tenant_id;
  await ctx.tenants.grantTenants(client.clientId, [other]);
  const start = new Date('2024-05-01T00:00:00Z');
  // 1,500 bets of the client's tenant, 500 of them at one instant (the bet id orders those), and
  // 1,000 of the granted tenant interleaved in time with them.
  const own = await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 1000, createdAt: start });
  const tied = await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 500, createdAt: new Date(start.getTime() + 400), sameInstant: true });
  const granted = await insertBulkBets(ctx.db.pool, { tenantId: other, count: 1000, createdAt: new Date(start.getTime() + 1) });
  all = [...own, ...tied, ...granted];
  assert.equal(new Set(all).size, 2500);
});
after(() => ctx.close());

async function walk(limit: number | undefined) {
  const seen: string[] = [];
  const created: string[] = [];
  let lastId: string | null = null;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 3000, 'the walk ends');
    const pagination = { ...(lastId && { last_id: lastId }), ...(limit && { limit }) };
    const { res, body } = await post(ctx, client.headers, GET_BETS, { input: { tenant: { ids: [client.tenantId, other] }, pagination } }, 'GetBets');
    assert.equal(res.statusCode, 200, res.body);
    const page = body.data!.getBets as { bets: Array<{ id: string; created_at: string }>; pagination: { last_id: string | null; count: number; has_more: boolean } };
    assert.equal(page.pagination.count, page.bets.length);
    assert.ok(page.bets.length <= (limit ?? 100));
    seen.push(...page.bets.map((b) => b.id));
    created.push(...page.bets.map((b) => b.created_at));
    if (!page.pagination.has_more) return { seen, created, pages: pages + 1 };
    assert.equal(page.pagination.last_id, page.bets.at(-1)!.id);
    lastId = page.pagination.last_id;
  }
}

test('a walk over 2,500 bets of two tenants returns each exactly once, oldest first, bet id breaking ties', async () => {
  for (const limit of [1000, 97, undefined]) {
    const { seen, created, pages } = await walk(limit);
    assert.equal(seen.length, 2500, `limit ${limit}`);
    assert.equal(new Set(seen).size, 2500, `limit ${limit}: no bet twice`);
    assert.deepEqual([...seen].sort(), [...all].sort());
    assert.equal(pages, Math.ceil(2500 / (limit ?? 100)));
    const order = seen.map((id, i) => `${created[i]} ${id}`);
    assert.deepEqual(order, [...order].sort(), 'ordered by (created_at, bet id)');
  }
});

test('a walk that has reached the end sees the bets created since, from its last last_id', async () => {
  const { seen } = await walk(1000);
  const later = await insertBulkBets(ctx.db.pool, { tenantId: client.tenantId, count: 3, createdAt: new Date('2024-05-02T00:00:00Z') });
  const { body } = await post(ctx, client.headers, GET_BETS, { input: { tenant: { ids: [client.tenantId, other] }, pagination: { last_id: seen.at(-1) } } });
  assert.deepEqual(body.data!.getBets.bets.map((b: { id: string }) => b.id), later);
  // Bets are never deleted by the service; this test's own cleanup removes their legs and history too (no cascade: migration 0016).
  await ctx.db.pool.query(`WITH l AS (DELETE FROM bet_legs WHERE bet_id = ANY ($1::uuid[])), h AS (DELETE FROM bet_history WHERE bet_id = ANY ($1::uuid[]))
    DELETE FROM bets WHERE bet_id = ANY ($1::uuid[])`, [later]);
});

test('limit: 100 by default, 1 to 1,000; last_id must be a bet of the tenants asked for', async () => {
  const ask = (pagination: Record<string, unknown>, ids = [client.tenantId]) =>
    post(ctx, client.headers, GET_BETS, { input: { tenant: { ids }, pagination } }, 'GetBets');
  assert.equal((await ask({})).body.data!.getBets.pagination.count, 100);
  assert.equal((await ask({ limit: 1000 })).body.data!.getBets.pagination.count, 1000);
  for (const pagination of [{ limit: 1001 }, { limit: 0 }, { limit: -5 }, { last_id: '' }, { last_id: '00000000-0000-4000-8000-000000000000' }, { last_id: all[2000] }]) {
    const { res, body } = await ask(pagination);
    assert.deepEqual([res.statusCode, codes(body), body.data], [200, ['BAD_USER_INPUT'], null], JSON.stringify(pagination));
  }
  const tooMany = await post(ctx, client.headers, GET_BETS, { input: { tenant: { ids: [client.tenantId], bet_ids: all.slice(0, 1001) } } });
  assert.deepEqual(codes(tooMany.body), ['BAD_USER_INPUT']);
});

const FULL = `query GetBets($input: GetBetsInput!) { getBets(input: $input) {
  bets { id created_at metadata { status amount liability action_id is_livebet }
         legs { event_id dividend postions_paid positions_paid sport_id sport_name meeting_id race_number }
         wallet_calls { operation amount transactionId status attempts { at http_status error } }
         history { seq at from to cause detail } }
  pagination { last_id count has_more } } }`;

/** Every field of a bet. */
const ALL = `fragment All on Bet { ${BET_FIELDS} }`;

/** Statements the app's pool ran while `run` ran. */
async function statements(run: () => Promise<unknown>): Promise<number> {
  const pool = ctx.db.pool;
  const original = pool.query;
  let count = 0;
  pool.query = ((...args: unknown[]) => {
    count += 1;
    return (original as (...a: unknown[]) => unknown).apply(pool, args);
  }) as typeof pool.query;
  try {
    await run();
  } finally {
    pool.query = original;
  }
  return count;
}

test('a page with every field is the same few statements whatever its size (no N+1)', async () => {
  await ctx.services.catalogue.importCatalog({
    meeting_id: 990001, date: '2024-05-01', venue: 'Bulk', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: '2024-05-01T01:00:00Z', runners: [1, 2, 3].map((n) => ({ number: n, name: `R${n}`, win: 3 })) }],
  });
  const counts: number[] = [];
  for (const limit of [1, 10, 1000]) {
    counts.push(await statements(async () => {
      const { res, body } = await post(ctx, client.headers, FULL, { input: { tenant: { ids: [client.tenantId, other] }, pagination: { limit } } });
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      assert.equal(body.data!.getBets.bets.length, limit);
      assert.deepEqual(body.data!.getBets.bets[0].history.map((h: { to: string }) => h.to), ['PENDING', 'ACCEPTED']);
      assert.equal(body.data!.getBets.bets[0].legs[0].sport_id, 'T');
    }));
  }
  // The page with its legs and history (1), the legs' race facts and meeting codes (2), wallet calls
  // with their attempts (1). The client was read by an earlier request and is still cached
  // (cachedClientLookup, backoffice.service.ts).
  assert.deepEqual(counts, [4, 4, 4]);
});

test('a query asking for too much is refused before it runs: two full pages, a field aliased many times, too many tokens', async () => {
  const one = await post(ctx, client.headers, `query Q($a: GetBetsInput!) { a: getBets(input: $a) { bets { ...All } } } ${ALL}`, { a: { tenant: { ids: [client.tenantId] } } });
  assert.equal(one.res.statusCode, 200, one.res.body.slice(0, 300));
  const two = `query Q($a: GetBetsInput!) { a: getBets(input: $a) { bets { ...All } } b: getBets(input: $a) { bets { ...All } } } ${ALL}`;
  const { res, body } = await post(ctx, client.headers, two, { a: { tenant: { ids: [client.tenantId] } } });
  assert.deepEqual([res.statusCode, codes(body)], [400, ['QUERY_TOO_COSTLY']], res.body.slice(0, 300));
  const aliased = (limit: number, n: number) => `{ getBets(input: {tenant: {ids: ["${client.tenantId}"]}, pagination: {limit: ${limit}}}) { bets { ${
    Array.from({ length: n }, (_, i) => `c${i}: wallet_calls { attempts { at error } }`).join(' ')} } } }`;
  const wide = await post(ctx, client.headers, aliased(1000, 10));
  assert.deepEqual([wide.res.statusCode, codes(wide.body)], [400, ['QUERY_TOO_COSTLY']], wide.res.body.slice(0, 300));
  const narrow = await post(ctx, client.headers, aliased(5, 10));
  assert.equal(narrow.res.statusCode, 200, narrow.res.body.slice(0, 300));
  const long = await post(ctx, client.headers, aliased(5, 300));
  assert.deepEqual([long.res.statusCode, codes(long.body)], [400, ['GRAPHQL_VALIDATION_FAILED']], long.res.body.slice(0, 300));
  assert.match(long.body.errors![0]!.message, /tokens/);
});
