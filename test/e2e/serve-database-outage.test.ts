// The real `wagerline serve` while its database host goes silent (a firewall dropping packets: a
// connection is accepted, or not, and never answered). Every connection serve opens is bounded by
// WAGERLINE_DB_CONNECT_TIMEOUT_MS: /readyz answers 503, requests fail with a clean
// service_unavailable (no SQL, no stack), nothing reaches the wallet without its row written, and
// once the database answers again serve is ready and the wallet returns any stake it held.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { bettingRig, type BettingRig } from '../helpers/betting-tenant.ts';
import { startCli } from '../helpers/cli.ts';
import { dbProxy, type DbProxy } from '../helpers/db-proxy.ts';
import type { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { until } from '../wallet-fixtures.ts';

const MEETING = 880091;
/** Long enough for any answer bounded by the connect timeout; a hang fails the test here instead. */
const PATIENCE_MS = 20_000;
let rig: BettingRig;
let idp: TestJwks;
let sandbox: WalletSandbox;
let proxy: DbProxy;
let serve: { child: ChildProcess; first: { url: string }; stderr: () => string };

before(async () => {
  // Every wallet call takes 1.5 s: time to silence the database while a reserve is with the wallet.
  rig = await bettingRig({ name: 'Outage E2E', meetingId: MEETING, venue: 'Flemington', latencyMs: 1500, settings: {
    WAGERLINE_WALLET_TIMEOUT_MS: '5000', WAGERLINE_WALLET_LEASE_MS: '6000', WAGERLINE_WALLET_POLL_MS: '200',
    WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: '1000', WAGERLINE_DB_CONNECT_TIMEOUT_MS: '1000', LOG_LEVEL: 'info',
  } });
  ({ idp, sandbox } = rig);
  proxy = await dbProxy(rig.db.url);
  serve = await startCli(['serve'], { ...rig.env, DATABASE_URL: proxy.url, PORT: String(await freePort()) });
});

after(async () => {
  const exited = new Promise((resolve) => serve.child.once('exit', resolve));
  serve.child.kill('SIGTERM');
  const timer = setTimeout(() => serve.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  await proxy.close();
  await rig.close();
});

const readyz = () => fetch(`${serve.first.url}/readyz`, { signal: AbortSignal.timeout(PATIENCE_MS) });

async function placeBet(userId: string) {
  const res = await fetch(`${serve.first.url}/graphql`, {
    method: 'POST',
    signal: AbortSignal.timeout(PATIENCE_MS),
    headers: { 'content-type': 'application/json', 'x-tenant-id': rig.tenantId, authorization: `Bearer ${await idp.token(userId)}` },
    body: JSON.stringify({
      query: 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }',
      variables: { input: { idempotencyKey: randomUUID(), type: 'WIN', legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }], stake: 25 } },
    }),
  });
  return { status: res.status, text: await res.text() };
}

/** No SQL, no stack, no driver text in what a client reads. */
function assertClean(text: string): void {
  assert.doesNotMatch(text, /SELECT|INSERT|UPDATE|\bat .+\.ts|timeout expired|ECONN|127\.0\.0\.1/, text);
}

async function readyAgain(): Promise<void> {
  proxy.restore();
  await until('serve to be ready again', async () => (await readyz()).status === 200, PATIENCE_MS);
}

test('the database host goes silent: /readyz and the token endpoint answer 503, then ready again once it answers', { timeout: 60_000 }, async () => {
  assert.equal((await readyz()).status, 200);
  proxy.silence();
  try {
    for (let probe = 0; probe < 2; probe++) {
      const res = await readyz();
      assert.equal(res.status, 503);
      assert.match(String(res.headers.get('content-type')), /application\/problem\+json/);
      const text = await res.text();
      assertClean(text);
      assert.equal(JSON.parse(text).code, 'service_unavailable');
    }
    const token = await fetch(`${serve.first.url}/oauth/token`, {
      method: 'POST', signal: AbortSignal.timeout(PATIENCE_MS), headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'someone', client_secret: 'something' }),
    });
    assert.equal(token.status, 503);
    const body = await token.text();
    assertClean(body);
    assert.equal(JSON.parse(body).error, 'temporarily_unavailable');
  } finally {
    await readyAgain();
  }
  // Two failing probes, one line for the change of state (with its reason, no stack), one for the recovery.
  const readiness = serve.stderr().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => ['not ready', 'ready again', 'request failed'].includes(String(l.msg)));
  assert.deepEqual(readiness.map((l) => [l.level, l.msg, l.reason]), [
    [40, 'not ready', 'the database is not reachable: no answer within 1000 ms (WAGERLINE_DB_CONNECT_TIMEOUT_MS)'],
    [30, 'ready again', undefined],
  ]);
  assert.doesNotMatch(serve.stderr(), /"stack"/);
});

test('a placement while the database is silent: SERVICE_UNAVAILABLE, and nothing sent to the wallet', { timeout: 60_000 }, async () => {
  const userId = randomUUID();
  const sent = sandbox.requests().length;
  proxy.silence();
  try {
    const answer = await placeBet(userId);
    assertClean(answer.text);
    const { errors } = JSON.parse(answer.text) as { errors: Array<{ extensions: { code: string } }> };
    assert.deepEqual(errors.map((e) => e.extensions.code), ['SERVICE_UNAVAILABLE'], answer.text);
    assert.equal(sandbox.requests().length, sent, 'no call reached the wallet');
  } finally {
    await readyAgain();
  }
  const placed = JSON.parse((await placeBet(userId)).text) as { data: { placeBet: { status: string } } };
  assert.equal(placed.data.placeBet.status, 'ACCEPTED', 'placement works again');
});

test('the database goes silent while the wallet holds a reserve: SERVICE_UNAVAILABLE, then the stake is released', { timeout: 90_000 }, async () => {
  const userId = randomUUID();
  const sent = sandbox.requests().length;
  const placing = placeBet(userId);
  await until('the reserve to reach the wallet', () => sandbox.requests().slice(sent).some((r) => r.op === 'reserve' && (r.body as { userId?: string }).userId === userId));
  proxy.silence();
  let answer;
  try {
    answer = await placing;
  } finally {
    proxy.restore();
  }
  assertClean(answer.text);
  const { errors } = JSON.parse(answer.text) as { errors: Array<{ extensions: { code: string } }> };
  assert.deepEqual(errors.map((e) => e.extensions.code), ['SERVICE_UNAVAILABLE'], answer.text);
  // The reserve's row outlived the outage: once its lease runs out the wallet worker releases it.
  await until('the stake to be returned', async () => {
    const { cash, reserved } = await sandbox.balances(userId);
    return cash === '1000.00' && reserved === '0.00';
  }, 60_000);
  for (const [transactionId, count] of await sandbox.effects()) assert.ok(count <= 1, `${transactionId} took effect ${count} times`);
});
