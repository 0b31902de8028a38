// Live bet subscriptions across processes: two real `wagerline serve` on one database. A back-office
// client subscribed to betUpdated on process A sees bets placed and cancelled through process B and
// settled by a CLI command, and never another tenant's; a frontend user subscribed to myBetUpdated
// on A sees its own bet settle and nothing of another user's. Connections without a key or with a
// bad token are refused at connection_init.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { startWalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { cliEnv, runCli, startCli } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { connect, refusal, type WsClient } from '../helpers/graphql-ws.ts';
import { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { CLIENT, until } from '../wallet-fixtures.ts';

const MEETING = 880031;
let db: TestDatabase;
let idp: TestJwks;
let sandbox: WalletSandbox;
let env: Record<string, string>;
let tenantA: string;
let tenantB: string;
let client: { client_id: string; client_secret: string };
let a: { child: ChildProcess; url: string };
let b: { child: ChildProcess; url: string };
let token: string;
const sockets: WsClient[] = [];

const cli = async (args: string[]) => {
  const res = await runCli(args, env);
  assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  return res.json();
};

async function serve(): Promise<{ child: ChildProcess; url: string }> {
  const started = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  return { child: started.child, url: started.first.url };
}

/** Subscriptions open in a process, from its /metrics. */
async function subscribers(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^bet_update_subscribers (\d+)/m.exec(text)?.[1] ?? 0);
}

async function placeBet(url: string, tenantId: string, userId: string, runner: number): Promise<string> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${await idp.token(userId)}` },
    body: JSON.stringify({
      query: 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }',
      variables: { input: { idempotencyKey: randomUUID(), type: 'WIN', legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[runner]], price: 2 + runner }], stake: 10 } },
    }),
  });
  const body = (await res.json()) as { data?: { placeBet?: { id: string; status: string } }; errors?: unknown };
  assert.equal(body.data?.placeBet?.status, 'ACCEPTED', JSON.stringify(body));
  return body.data!.placeBet!.id;
}

before(async () => {
  db = await freshDatabase();
  idp = await TestJwks.start();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  env = cliEnv(db.url, { WAGERLINE_WALLET_POLL_MS: '200', WAGERLINE_SETTLEMENT_POLL_MS: '200' });
  tenantA = (await cli(['tenant', 'create', '--name', 'Subs A'])).tenant_id;
  tenantB = (await cli(['tenant', 'create', '--name', 'Subs B'])).tenant_id;
  for (const tenant of [tenantA, tenantB]) {
    await cli(['tenant', 'set-wallet', tenant, '--url', sandbox.url, '--auth', 'client_credentials', '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret]);
    await cli(['tenant', 'set-auth', tenant, '--mode', 'jwt', '--jwks-url', idp.url, '--client-id', idp.clientId]);
  }
  client = await cli(['client', 'create', '--tenant', tenantA, '--scopes', 'backoffice']);
  const file = path.join(env.WAGERLINE_DATA_DIR!, 'day.json');
  writeFileSync(file, JSON.stringify({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place'],
      runners: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 })) }],
  }));
  await cli(['catalog', 'import', file]);
  [a, b] = await Promise.all([serve(), serve()]);
  const res = await fetch(`${a.url}/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
  });
  token = ((await res.json()) as { access_token: string }).access_token;
});

after(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  // Both shut down gracefully within seconds: no socket (a refused upgrade included) holds them up.
  const stuck: string[] = [];
  await Promise.all([a, b].map(async (p, i) => {
    if (!p || p.child.exitCode !== null) return;
    const exited = new Promise((resolve) => p.child.once('exit', resolve));
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => { stuck.push(i ? 'B' : 'A'); p.child.kill('SIGKILL'); }, 20_000);
    await exited;
    clearTimeout(timer);
  }));
  await sandbox.close();
  await idp.close();
  await db.drop();
  assert.deepEqual(stuck, [], 'serve did not stop on SIGTERM');
});

const BET_UPDATED = `subscription Live($tenants: [ID!]) {
  betUpdated(tenant_ids: $tenants) { bet_id tenant_id user_id status bet { id metadata { status payout amount } legs { race_number dividend } history { to cause } } }
}`;
const MY_BET_UPDATED = 'subscription { myBetUpdated { id status result payout } }';

test('a back-office client on process A sees placements and a cancel through B and a settlement, never another tenant; a frontend user sees only its own bets', { timeout: 90_000 }, async () => {
  const office = await connect(`${a.url}/backoffice/query`, { 'x-api-key': client.client_id, authorization: `Bearer ${token}` });
  sockets.push(office);
  office.subscribe('all', BET_UPDATED);
  office.subscribe('b-only', BET_UPDATED, { tenants: [tenantB] });
  const userOne = randomUUID();
  const userTwo = randomUUID();
  const frontend = await connect(`${a.url}/graphql`, { token: await idp.token(userOne), 'x-tenant-id': tenantA });
  sockets.push(frontend);
  frontend.subscribe('mine', MY_BET_UPDATED);
  await until('both subscriptions to be live on A', async () => (await subscribers(a.url)) === 2);

  // Asking for a tenant neither its own nor granted is FORBIDDEN, and subscribes nothing.
  await until('the refusal of tenant B', () => office.received.some((m) => m.id === 'b-only'));
  const forbidden = office.received.find((m) => m.id === 'b-only')!;
  assert.equal(forbidden.type, 'error', JSON.stringify(forbidden));
  assert.match(forbidden.payload[0].message, new RegExp(`tenant ${tenantB} is not granted`));

  // Placed through B: user one's winner and user two's loser in tenant A, and a bet in tenant B.
  const one = await placeBet(b.url, tenantA, userOne, 2);
  const two = await placeBet(b.url, tenantA, userTwo, 5);
  const other = await placeBet(b.url, tenantB, randomUUID(), 2);
  const updates = () => office.received.filter((m) => m.id === 'all' && m.type === 'next').map((m) => m.payload.data.betUpdated);
  await until('the placements on A', () => [one, two].every((id) => updates().some((u) => u.bet_id === id && u.status === 'ACCEPTED')));

  // Cancelled through B's back-office endpoint.
  const cancel = await fetch(`${b.url}/backoffice/query`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': client.client_id, authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: `mutation { cancelBet(bet: {id: "${two}", tenant_id: "${tenantA}"}, reason: "void") { status } }` }),
  });
  assert.equal(((await cancel.json()) as { data: { cancelBet: { status: string } } }).data.cancelBet.status, 'CANCELLED');
  await until('the cancel on A', () => updates().some((u) => u.bet_id === two && u.status === 'CANCELLED'));
  const cancelled = updates().find((u) => u.bet_id === two && u.status === 'CANCELLED');
  assert.equal(cancelled.bet.metadata.status, 'CANCELLED');
  assert.equal(cancelled.bet.history.at(-1).cause, 'cancelled');

  // Settled by another process (the CLI records the result and settles the race).
  await cli(['race', 'status', String(MEETING), '1', 'closed']);
  await cli(['race', 'result', String(MEETING), '1', '--placings', '[[2],[3],[4]]']);
  await until('the settlement on A', () => updates().some((u) => u.bet_id === one && u.status === 'SETTLED'));
  const settled = updates().find((u) => u.bet_id === one && u.status === 'SETTLED');
  assert.deepEqual({ ...settled, bet: undefined }, { bet_id: one, tenant_id: tenantA, user_id: userOne, status: 'SETTLED', bet: undefined });
  assert.equal(settled.bet.metadata.payout, '40.00'); // $10 at 4.00
  assert.equal(settled.bet.legs[0].dividend, '4.00');

  // The frontend user saw its own bet taken and settled, nothing of user two's.
  const mine = () => frontend.received.filter((m) => m.id === 'mine' && m.type === 'next').map((m) => m.payload.data.myBetUpdated);
  await until('user one\'s settlement', () => mine().some((bet) => bet.id === one && bet.status === 'SETTLED'));
  const settledMine = mine().find((bet) => bet.id === one && bet.status === 'SETTLED');
  assert.deepEqual(settledMine, { id: one, status: 'SETTLED', result: 'WON', payout: 40 });
  assert.ok(mine().every((bet) => bet.id === one), `only user one's bet: ${JSON.stringify(mine())}`);

  // Tenant B's bet was placed and settled too, and reached neither subscriber.
  const { rows: [otherBet] } = await db.pool.query('SELECT status FROM bets WHERE bet_id = $1', [other]);
  assert.equal(otherBet.status, 'settled');
  assert.ok(updates().every((u) => u.tenant_id === tenantA), 'only tenant A');
  assert.ok(!JSON.stringify(office.received).includes(other) && !JSON.stringify(frontend.received).includes(other));
  assert.ok(office.received.every((m) => m.type !== 'error' || m.id === 'b-only'), JSON.stringify(office.received.filter((m) => m.type === 'error')));

  // Completing a subscription unsubscribes it.
  office.complete('all');
  await until('the subscription to end', async () => (await subscribers(a.url)) === 1);
});

test('connections are refused at connection_init: no key, unknown key, bad or missing token, bad user token', { timeout: 30_000 }, async () => {
  const office = `${a.url}/backoffice/query`;
  assert.deepEqual(await refusal(office, null), { code: 4401, reason: 'UNAUTHENTICATED: api_key_missing' });
  assert.deepEqual(await refusal(office, { 'x-api-key': 'wl_nobody', authorization: `Bearer ${token}` }), { code: 4401, reason: 'UNAUTHENTICATED: api_key_unknown' });
  assert.deepEqual(await refusal(office, { 'x-api-key': client.client_id, authorization: 'Bearer not-a-token' }), { code: 4401, reason: 'UNAUTHENTICATED: token_invalid' });
  assert.deepEqual(await refusal(office, { 'x-api-key': client.client_id }), { code: 4401, reason: 'UNAUTHENTICATED: token_missing' });
  // A key on the upgrade request is checked before the upgrade: refused with HTTP 401.
  assert.deepEqual(await refusal(office, null, { 'x-api-key': 'wl_nobody' }), { status: 401 });
  // The key on the upgrade and the token in connection_init is accepted.
  const split = await connect(office, { authorization: `Bearer ${token}` }, { 'x-api-key': client.client_id });
  await split.close();

  const frontend = `${a.url}/graphql`;
  assert.deepEqual(await refusal(frontend, { token: 'not-a-token', 'x-tenant-id': tenantA }), { code: 4401, reason: 'UNAUTHENTICATED: token_malformed' });
  assert.deepEqual(await refusal(frontend, { 'x-tenant-id': tenantA }), { code: 4401, reason: 'UNAUTHENTICATED: token_missing' });
  // No X-Tenant-Id: a bad request.
  assert.deepEqual(await refusal(frontend, { token: await idp.token(randomUUID()) }), { code: 4400, reason: 'BAD_REQUEST' });
});
