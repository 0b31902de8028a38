// A placement killed between reserve and confirm: the real `wagerline serve` is killed with SIGKILL
// while the wallet is still answering the reserve (so the wallet holds the stake and nobody
// confirms it). After a restart, the wallet worker's rescue finds the reserve's lease run out, asks
// the wallet again and releases the reservation: no money stays held, nothing is confirmed, and
// the bet reads as rejected.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { bettingRig, type BettingRig } from '../helpers/betting-tenant.ts';
import { startCli } from '../helpers/cli.ts';
import type { TestDatabase } from '../helpers/db.ts';
import type { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { until } from '../wallet-fixtures.ts';

const MEETING = 880002;
let db: TestDatabase;
let idp: TestJwks;
let sandbox: WalletSandbox;
let env: Record<string, string>;
let tenantId: string;
let rig: BettingRig;

before(async () => {
  // Every wallet call waits 600 ms before it takes effect: time to kill the service mid-reserve.
  rig = await bettingRig({ name: 'Crash E2E', meetingId: MEETING, venue: 'Caulfield', latencyMs: 600, settings: {
    WAGERLINE_WALLET_TIMEOUT_MS: '2000', WAGERLINE_WALLET_LEASE_MS: '3000', WAGERLINE_WALLET_POLL_MS: '200',
    WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: '1000',
  } });
  ({ db, idp, sandbox, env, tenantId } = rig);
});

after(() => rig.close());

test('SIGKILL between reserve and confirm: after a restart no money stays held and the bet is rejected', { timeout: 60_000 }, async () => {
  const userId = randomUUID();
  const first = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  const placing = fetch(`${first.first.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${await idp.token(userId)}` },
    body: JSON.stringify({
      query: 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }',
      variables: { input: { idempotencyKey: 'crash-1', type: 'WIN', legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }], stake: 25 } },
    }),
  }).catch((error: unknown) => error);
  await until('the reserve to reach the wallet', () => sandbox.requests().some((r) => r.op === 'reserve'));
  first.child.kill('SIGKILL');
  assert.ok((await placing) instanceof Error, 'the frontend saw the connection drop');
  await until('the wallet to hold the stake', async () => (await sandbox.balances(userId)).reserved === '25.00');

  const second = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  try {
    await until('the reservation to be released', async () => {
      const b = await sandbox.balances(userId);
      return b.reserved === '0.00' && b.cash === '1000.00';
    }, 30_000);
    const { rows: [bet] } = await db.pool.query('SELECT bet_id FROM bets WHERE user_id = $1', [userId]);
    const ops = sandbox.requests().filter((r) => (r.body as { betId?: string })?.betId === bet.bet_id).map((r) => r.op);
    assert.ok(!ops.includes('confirm'), `nothing confirmed: ${ops.join(', ')}`);
    assert.ok(ops.includes('refundBet'));
    const effects = await sandbox.effects();
    for (const [transactionId, count] of effects) assert.ok(count <= 1, `${transactionId} took effect ${count} times`);
    // Read after the interruption window: the bet is rejected, not left pending.
    await until('the bet to read as rejected', async () => {
      const res = await fetch(`${second.first.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${await idp.token(userId)}` },
        body: JSON.stringify({ query: `{ bet(id: "${bet.bet_id}") { status reasonCode } }` }),
      });
      const body = (await res.json()) as { data?: { bet?: { status: string; reasonCode: string } } };
      return body.data?.bet?.status === 'REJECTED' && body.data.bet.reasonCode === 'placement_interrupted';
    }, 20_000);
  } finally {
    second.child.kill('SIGTERM');
  }
});
