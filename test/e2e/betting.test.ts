// Bet placement end to end, as a tenant frontend and an operator would see it: the real
// bin/wagerline (serve and the admin commands), an identity provider's JWKS served by the test,
// RS256 user tokens, the reference wallet on 127.0.0.1, and every wallet effect checked there.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startWalletSandbox } from '../../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { cliEnv, runCli, startCli } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { CLIENT, until } from '../wallet-fixtures.ts';

let db: TestDatabase;
let env: Record<string, string>;
let idp: TestJwks;
let sandbox: WalletSandbox;
let serve: Awaited<ReturnType<typeof startCli>>;
let base: string;
let tenantId: string;
const MEETING = 880001;

async function ok(args: string[]) {
  const res = await runCli(args, env);
  assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  return res.json();
}

/** A meeting today with four open races, every product, a quaddie and a daily double. */
function racingDay(dir: string): string {
  const start = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const runners = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `Runner ${n}`, win: 2 + n / 2, place: Number((1.2 + n / 10).toFixed(2)) }));
  const file = path.join(dir, 'day.json');
  writeFileSync(file, JSON.stringify({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Flemington', jurisdiction: 'VIC', code: 'T',
    pools: [{ product: 'quaddie', races: [1, 2, 3, 4] }, { product: 'dailydouble', races: [3, 4] }],
    races: [1, 2, 3, 4].map((r) => ({
      race_number: r, start_time: start(60 + r * 30), products: ['win', 'place', 'exacta', 'quinella', 'trifecta', 'firstfour'],
      runners: r === 2 ? [...runners.slice(0, 7), { number: 8, name: 'Runner 8', scratched: true }] : runners,
    })),
  }));
  return file;
}

async function graphql(token: string | undefined, query: string, variables: Record<string, unknown> = {}, tenant = tenantId) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenant, ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Record<string, any> | null; errors?: Array<{ message: string; extensions?: { code?: string; reason?: string } }> };
}

const PLACE = 'mutation PlaceBet($input: PlaceBetInput!) { placeBet(input: $input) { id status stake acceptedStake percentage combinations reason reasonCode } }';
const place = (token: string, input: Record<string, unknown>) =>
  graphql(token, PLACE, { input: { idempotencyKey: randomUUID(), ...input } });
const leg = (raceNumber: number, selections: number[][], price?: number) => ({ meetingId: MEETING, raceNumber, selections, ...(price && { price }) });

async function startServe(extra: Record<string, string> = {}) {
  serve = await startCli(['serve'], { ...env, PORT: String(await freePort()), ...extra });
  base = serve.first.url;
}

before(async () => {
  db = await freshDatabase();
  idp = await TestJwks.start();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  env = cliEnv(db.url, {
    WAGERLINE_WALLET_TIMEOUT_MS: '2000', WAGERLINE_WALLET_LEASE_MS: '3000', WAGERLINE_WALLET_POLL_MS: '200',
    WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: '1000',
  });
  const dir = env.WAGERLINE_DATA_DIR!;
  tenantId = (await ok(['tenant', 'create', '--name', 'Betting E2E'])).tenant_id;
  await ok(['tenant', 'set-wallet', tenantId, '--url', sandbox.url, '--auth', 'client_credentials', '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret]);
  await ok(['tenant', 'set-auth', tenantId, '--mode', 'jwt', '--jwks-url', idp.url, '--client-id', idp.clientId]);
  await ok(['catalog', 'import', racingDay(dir)]);
  await startServe();
});

after(async () => {
  serve?.child.kill('SIGTERM');
  await sandbox.close();
  await idp.close();
  await db.drop();
});

const balance = async (userId: string) => {
  const b = await sandbox.balances(userId);
  return { cash: b.cash, reserved: b.reserved };
};
const transactions = async (betId: string) => {
  const res = await fetch(`${sandbox.url}/transactions?betId=${betId}`, { headers: await sandboxAuth() });
  return ((await res.json()) as { transactions: Array<{ op: string; amount: string }> }).transactions.map((t) => `${t.op} ${t.amount}`);
};
async function sandboxAuth() {
  const res = await fetch(`${sandbox.url}/auth/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret }),
  });
  return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` };
}
const settled = (betId: string, expected: string[]) =>
  until(`the wallet calls of ${betId}`, async () => JSON.stringify(await transactions(betId)) === JSON.stringify(expected));

test('bets of every type are taken: reserve then confirm, the user\'s wallet moves by the stakes', async () => {
  const userId = randomUUID();
  const token = await idp.token(userId);
  const bets: Array<[Record<string, unknown>, number, number | null]> = [
    [{ type: 'WIN', legs: [leg(1, [[3]], 3.5)], stake: 10 }, 1, null],
    [{ type: 'PLACE', legs: [leg(1, [[2]], 1.4)], stake: 5 }, 1, null],
    [{ type: 'EXACTA', legs: [leg(1, [[1, 2, 3]])], stake: 6, boxed: true }, 6, 100],
    [{ type: 'QUINELLA', legs: [leg(1, [[1, 2, 3, 4]])], stake: 3 }, 6, 50],
    [{ type: 'TRIFECTA', legs: [leg(1, [[1], [2, 3], [2, 3, 4]])], stake: 2 }, 4, 50],
    [{ type: 'FIRST_FOUR', legs: [leg(1, [[1, 2, 3, 4, 5]])], stake: 12, boxed: true }, 120, 10],
    [{ type: 'MULTI', legs: [leg(1, [[1]], 2.5), leg(2, [[2]], 3)], stake: 4 }, 1, null],
    [{ type: 'QUADDIE', legs: [1, 2, 3, 4].map((r) => leg(r, [[1, 2]])), stake: 8 }, 16, 50],
    [{ type: 'DAILY_DOUBLE', legs: [leg(3, [[1, 2]]), leg(4, [[3]])], stake: 1 }, 2, 50],
  ];
  let total = 0;
  for (const [input, combinations, percentage] of bets) {
    const res = await place(token, input);
    assert.equal(res.errors, undefined, `${input.type}: ${JSON.stringify(res.errors)}`);
    const bet = res.data!.placeBet;
    assert.equal(bet.status, 'ACCEPTED', `${input.type}: ${bet.reason}`);
    assert.equal(bet.combinations, combinations, String(input.type));
    assert.equal(bet.percentage, percentage, String(input.type));
    assert.equal(bet.acceptedStake, input.stake);
    total += input.stake as number;
    await settled(bet.id, [`reserve ${Number(input.stake).toFixed(2)}`, `confirm ${Number(input.stake).toFixed(2)}`]);
  }
  assert.deepEqual(await balance(userId), { cash: (1000 - total).toFixed(2), reserved: '0.00' });
  const mine = await graphql(token, '{ myBets(first: 100) { bets { id type status } hasMore } }');
  assert.equal(mine.data!.myBets.bets.length, bets.length);
  assert.equal(mine.data!.myBets.hasMore, false);
});

test('a replay with the same key is the same bet and reserves once; another body under the key is refused', async () => {
  const userId = randomUUID();
  const token = await idp.token(userId);
  const input = { idempotencyKey: 'replay-1', type: 'WIN', legs: [leg(1, [[4]], 4)], stake: 7 };
  const [a, b] = await Promise.all([graphql(token, PLACE, { input }), graphql(token, PLACE, { input })]);
  assert.equal(a.data!.placeBet.id, b.data!.placeBet.id);
  const again = await graphql(token, PLACE, { input });
  assert.equal(again.data!.placeBet.id, a.data!.placeBet.id);
  await settled(a.data!.placeBet.id, ['reserve 7.00', 'confirm 7.00']);
  const expired = await place(await idp.token(userId, { expIn: -300 }), { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 1 });
  assert.equal(expired.errors?.[0]?.extensions?.reason, 'expired', 'the frontend is told why');
  const other = await graphql(token, PLACE, { input: { ...input, stake: 8 } });
  assert.equal(other.errors![0]!.extensions!.code, 'IDEMPOTENCY_CONFLICT');
  assert.deepEqual(await balance(userId), { cash: '993.00', reserved: '0.00' });
});

test('limits take part of a stake (confirm of the accepted amount); a wallet refusal takes nothing', async () => {
  await ok(['tenant', 'set-limits', tenantId, '--max-stake', '20']);
  try {
    const userId = randomUUID();
    const res = await place(await idp.token(userId), { type: 'WIN', legs: [leg(3, [[5]], 4.5)], stake: 50 });
    const bet = res.data!.placeBet;
    assert.deepEqual([bet.status, bet.stake, bet.acceptedStake, bet.reasonCode], ['PARTIALLY_ACCEPTED', 50, 20, 'max_stake']);
    await settled(bet.id, ['reserve 50.00', 'confirm 20.00']);
    assert.deepEqual(await balance(userId), { cash: '980.00', reserved: '0.00' });
  } finally {
    await ok(['tenant', 'set-limits', tenantId, '--max-stake', 'none']);
  }
  const poor = randomUUID();
  await sandbox.seedUser(poor, { cash: '5.00' });
  const refused = (await place(await idp.token(poor), { type: 'WIN', legs: [leg(3, [[5]], 4.5)], stake: 10 })).data!.placeBet;
  assert.deepEqual([refused.status, refused.reasonCode], ['REJECTED', 'wallet_refused']);
  assert.match(refused.reason, /balance/);
  assert.deepEqual(await balance(poor), { cash: '5.00', reserved: '0.00' });
});

test('bad input gets a clear error with a stable code and writes nothing', async () => {
  const userId = randomUUID();
  const token = await idp.token(userId);
  const cases: Array<[string | undefined, Record<string, unknown>, string]> = [
    [`${token.slice(0, -4)}AAAA`, { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 1 }, 'UNAUTHENTICATED'],
    [await idp.token(userId, { expIn: -300 }), { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 1 }, 'UNAUTHENTICATED'],
    [undefined, { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 1 }, 'UNAUTHENTICATED'],
    [token, { type: 'WIN', legs: [leg(2, [[8]], 6)], stake: 1 }, 'RUNNER_SCRATCHED'],
    [token, { type: 'WIN', legs: [leg(9, [[1]], 2.5)], stake: 1 }, 'RACE_NOT_FOUND'],
    [token, { type: 'QUADDIE', legs: [2, 3, 4, 1].map((r) => leg(r, [[1]])), stake: 1 }, 'PRODUCT_NOT_OFFERED'],
    [token, { type: 'EXACTA', legs: [leg(1, [[1, 1], [2]])], stake: 1 }, 'INVALID_SELECTION'],
    [token, { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 0 }, 'INVALID_STAKE'],
    [token, { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: -1 }, 'INVALID_STAKE'],
    [token, { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 1.005 }, 'INVALID_STAKE'],
    [token, { type: 'WIN', legs: [leg(1, [[1]], 9.5)], stake: 1 }, 'PRICE_CHANGED'],
    [token, { type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 'ten' }, 'GRAPHQL_VALIDATION_FAILED'],
  ];
  for (const [t, input, code] of cases) {
    const res = await place(t as string, input);
    assert.equal(res.errors?.[0]?.extensions?.code, code, `${JSON.stringify(input)} → ${JSON.stringify(res.errors)}`);
    assert.ok(!JSON.stringify(res).includes(token), 'the token is never echoed');
  }
  const other = await graphql(token, PLACE, { input: { idempotencyKey: 'x', type: 'WIN', legs: [leg(1, [[1]], 2.5)], stake: 1 } }, randomUUID());
  assert.equal(other.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED', 'a tenant the token is not for');
  await ok(['race', 'status', String(MEETING), '4', 'closed']);
  assert.equal((await place(token, { type: 'WIN', legs: [leg(4, [[1]], 2.5)], stake: 1 })).errors?.[0]?.extensions?.code, 'RACE_NOT_OPEN');
  const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM bets WHERE user_id = $1', [userId]);
  assert.equal(rows[0].n, 0);
  assert.deepEqual(await balance(userId), { cash: '1000.00', reserved: '0.00' });
});
