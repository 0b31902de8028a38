// What one frontend client may ask of /graphql at once: an operation's size (aliases, fields,
// page sizes) is bounded before any resolver runs, and a WebSocket connection holds a bounded
// number of myBetUpdated subscriptions, none of which outlives its connection or its token.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { TestContext } from './helpers/app.ts';
import type { TestJwks } from './helpers/jwks.ts';
import { jwtFrontend, type JwtFrontend } from './helpers/jwt-frontend.ts';

let frontend: JwtFrontend;
let ctx: TestContext;
let idp: TestJwks;
let base: string;
let tenantId: string;


before(async () => {
  frontend = await jwtFrontend('Limits');
  ({ ctx, idp, tenantId } = frontend);
  base = frontend.base;
});
after(async () => {
  await frontend.close();
});

async function graphql(query: string, token?: string) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${token ?? await idp.token(randomUUID(), { now: ctx.clock() })}` },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as { data: unknown; errors?: Array<{ message: string; extensions: Record<string, unknown> }> } };
}

const codes = (body: { errors?: Array<{ extensions: Record<string, unknown> }> }) => (body.errors ?? []).map((e) => e.extensions.code);

test('an operation aliasing myBets or bet many times is refused before it runs (400 QUERY_TOO_COSTLY)', async () => {
  const pages = Array.from({ length: 200 }, (_, i) => `p${i}: myBets(first: 100) { hasMore bets { id legs { eventId } } }`).join(' ');
  const many = await graphql(`{ ${pages} }`);
  assert.deepEqual([many.status, codes(many.body)], [400, ["QUERY_TOO_COSTLY"]], JSON.stringify(many.body).slice(0, 300));
  const bets = Array.from({ length: 50 }, (_, i) => `b${i}: bet(id: "${randomUUID()}") { id }`).join(' ');
  const lookups = await graphql(`{ ${bets} }`);
  assert.deepEqual([lookups.status, codes(lookups.body)], [400, ['QUERY_TOO_COSTLY']]);
  assert.match(lookups.body.errors![0]!.message, /50 root fields/);
  // Fields aliased within a bet: each costs, and a huge document is refused by its size alone.
  const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}: id`).join(' ');
  const wide = await graphql(`{ myBets(first: 100) { bets { ${fields(200)} } } }`);
  assert.deepEqual([wide.status, codes(wide.body)], [400, ['QUERY_TOO_COSTLY']]);
  const huge = await graphql(`{ myBets(first: 1) { bets { ${fields(20_000)} } } }`);
  assert.deepEqual([huge.status, codes(huge.body)], [400, ['GRAPHQL_VALIDATION_FAILED']]);
  assert.match(huge.body.errors![0]!.message, /more th\w+ 5000 tokens/);
});

test('what a frontend asks for still runs: a full page of 100 bets with every field, and a few lookups together', async () => {
  const every = 'id ticketId type status stake acceptedStake percentage originalPercentage combinations odds originalOdds boxed bonus reason reasonCode createdAt result payout refunded cashOut settledAt legs { meetingId raceNumber eventId eventName selections price seenPrice }';
  const page = await graphql(`{ myBets(first: 100) { hasMore endCursor bets { ${every} } } }`);
  assert.deepEqual([page.status, page.body.errors], [200, undefined], JSON.stringify(page.body));
  const few = await graphql(`{ a: bet(id: "${randomUUID()}") { ${every} } b: bet(id: "${randomUUID()}") { id } mine: myBets(first: 20) { hasMore bets { id status } } }`);
  assert.deepEqual([few.status, few.body.errors], [200, undefined], JSON.stringify(few.body));
});

test('myBets checks who asks before its arguments: an anonymous caller learns nothing of the rules', async () => {
  const anonymous = await graphql('{ myBets(first: 0) { hasMore } }', 'not-a-token');
  assert.deepEqual(codes(anonymous.body), ['UNAUTHENTICATED']);
  const signedIn = await graphql('{ myBets(first: 0) { hasMore } }');
  assert.deepEqual(codes(signedIn.body), ['BAD_REQUEST']);
});
