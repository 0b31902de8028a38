// Shutdown of the real `wagerline serve` while work is in flight: a placement waiting on a slow
// wallet finishes (reserve and confirm delivered), new connections are refused, and the process
// exits 0. A second signal during shutdown (npm start relays Ctrl-C to serve, which got it from
// the terminal too) must not cut it short.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { bettingRig, type BettingRig } from '../helpers/betting-tenant.ts';
import { startCli } from '../helpers/cli.ts';
import type { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { until } from '../wallet-fixtures.ts';

const MEETING = 880077;
let idp: TestJwks;
let sandbox: WalletSandbox;
let env: Record<string, string>;
let tenantId: string;
let rig: BettingRig;

before(async () => {
  // Every wallet call takes 800 ms: time to signal serve while the reserve is with the wallet.
  rig = await bettingRig({ name: 'Shutdown E2E', meetingId: MEETING, venue: 'Sandown', latencyMs: 800, settings: {
    WAGERLINE_WALLET_TIMEOUT_MS: '3000', WAGERLINE_WALLET_LEASE_MS: '4000', WAGERLINE_WALLET_POLL_MS: '200',
    WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: '1000', LOG_LEVEL: 'info',
  } });
  ({ idp, sandbox, env, tenantId } = rig);
});

after(() => rig.close());

async function placeDuringShutdown(signals: NodeJS.Signals[]) {
  const userId = randomUUID();
  const serve = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => serve.child.once('exit', (code, signal) => resolve([code, signal])));
  const placing = fetch(`${serve.first.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${await idp.token(userId)}` },
    body: JSON.stringify({
      query: 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }',
      variables: { input: { idempotencyKey: randomUUID(), type: 'WIN', legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }], stake: 25 } },
    }),
  });
  const before = sandbox.requests().length;
  await until('the reserve to reach the wallet', () => sandbox.requests().slice(before).some((r) => r.op === 'reserve'));
  for (const signal of signals) {
    serve.child.kill(signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const refused = await fetch(`${serve.first.url}/healthz`).then(() => false, () => true);
  assert.ok(refused, 'a new connection during shutdown is refused');
  const answer = (await (await placing).json()) as { data: { placeBet: { id: string; status: string } } };
  assert.equal(answer.data.placeBet.status, 'ACCEPTED', JSON.stringify(answer));
  // The placement's kept-alive connection must not hold the server open (keepAliveTimeout is 72 s).
  const timer = setTimeout(() => serve.child.kill('SIGKILL'), 10_000);
  const [code, signal] = await exited;
  clearTimeout(timer);
  assert.deepEqual([code, signal], [0, null], `serve exits 0 by itself within 10 s: ${serve.stderr().slice(-2000)}`);
  // Everything the placement owed the wallet went out before the exit: nothing held, nothing twice.
  assert.deepEqual(await sandbox.balances(userId).then((b) => [b.cash, b.reserved]), ['975.00', '0.00']);
  for (const [transactionId, count] of await sandbox.effects()) assert.ok(count <= 1, `${transactionId} took effect ${count} times`);
  return serve.stderr();
}

test('SIGTERM mid-placement: the placement finishes, its confirm is delivered, serve exits 0', { timeout: 60_000 }, async () => {
  await placeDuringShutdown(['SIGTERM']);
});

test('a second SIGINT during shutdown (npm start relays Ctrl-C) does not cut it short', { timeout: 60_000 }, async () => {
  await placeDuringShutdown(['SIGINT', 'SIGINT']);
});

test('a second SIGTERM during shutdown does not cut it short', { timeout: 60_000 }, async () => {
  await placeDuringShutdown(['SIGTERM', 'SIGTERM']);
});
