// A placement killed while its take waits for the race: the wallet answered the reserve (it holds
// the stake), the take's transaction waits for the race's row (held by the test, as a catalogue
// change would), and the real `wagerline serve` is killed with SIGKILL. Then the race is released:
// the dead process's transaction must commit nothing. After a restart the rescue releases the
// reservation: no money stays held, nothing is confirmed, each wallet transaction takes effect
// once, and the bet reads as rejected.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { WalletSandbox } from '../../src/tools/wallet-sandbox/types.ts';
import { lockWaited } from '../betting-fixture.ts';
import { bettingRig, type BettingRig } from '../helpers/betting-tenant.ts';
import { startCli } from '../helpers/cli.ts';
import type { TestDatabase } from '../helpers/db.ts';
import type { TestJwks } from '../helpers/jwks.ts';
import { freePort } from '../helpers/net.ts';
import { until } from '../wallet-fixtures.ts';

const MEETING = 880003;
let db: TestDatabase;
let idp: TestJwks;
let sandbox: WalletSandbox;
let env: Record<string, string>;
let tenantId: string;
let rig: BettingRig;

before(async () => {
  // Short settings: a 3 s lease, and a bet read as interrupted 5 s after it was placed (timeout ×
  // (retries + 1) + placement window + lease). The take would wait 20 s for the race: the kill
  // comes while it waits, not after it gave up.
  rig = await bettingRig({ name: 'Take Crash E2E', meetingId: MEETING, venue: 'Flemington', latencyMs: 0, settings: {
    WAGERLINE_WALLET_TIMEOUT_MS: '1000', WAGERLINE_WALLET_RESERVE_RETRIES: '0', WAGERLINE_WALLET_LEASE_MS: '3000',
    WAGERLINE_WALLET_POLL_MS: '200', WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: '1000', WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS: '20000',
  } });
  ({ db, idp, sandbox, env, tenantId } = rig);
});

after(() => rig.close());

async function graphql(url: string, userId: string, query: string, variables?: unknown) {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, authorization: `Bearer ${await idp.token(userId)}` },
    body: JSON.stringify({ query, variables }),
  });
}

test('SIGKILL while the take waits for the race: the race released, a restart returns the stake and rejects the bet', { timeout: 60_000 }, async () => {
  const userId = randomUUID();
  const first = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  // The race's row held as a catalogue change holds it, so the take's share lock waits.
  const race = await db.pool.connect();
  let betId: string;
  try {
    await race.query('BEGIN');
    await race.query('SELECT 1 FROM race_starts WHERE meeting_id = $1 AND race_number = $2 FOR UPDATE', [MEETING, 1]);
    const placing = graphql(first.first.url, userId, 'mutation P($input: PlaceBetInput!) { placeBet(input: $input) { id status } }', {
      input: { idempotencyKey: 'take-crash-1', type: 'WIN', legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[2]], price: 4 }], stake: 25 },
    }).catch((error: unknown) => error);
    await until('the wallet to hold the stake', async () => (await sandbox.balances(userId)).reserved === '25.00');
    await until('the take to wait for the race', () => lockWaited(db.pool));
    first.child.kill('SIGKILL');
    assert.ok((await placing) instanceof Error, 'the frontend saw the connection drop');
    betId = (await db.pool.query<{ bet_id: string }>('SELECT bet_id FROM bets WHERE user_id = $1', [userId])).rows[0]!.bet_id;
  } finally {
    await race.query('ROLLBACK').catch(() => undefined);
    race.release();
  }
  // The dead process's take gets the race now, and must commit nothing: its client is gone.
  await until('no backend to wait for a lock', async () => !(await lockWaited(db.pool)));
  const { rows: [stored] } = await db.pool.query('SELECT status FROM bets WHERE bet_id = $1', [betId]);
  assert.equal(stored.status, 'pending', 'the killed placement took nothing');

  const second = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  try {
    await until('the reservation to be released', async () => {
      const b = await sandbox.balances(userId);
      return b.reserved === '0.00' && b.cash === '1000.00';
    }, 20_000);
    const ops = sandbox.requests().filter((r) => (r.body as { betId?: string })?.betId === betId).map((r) => r.op);
    assert.ok(!ops.includes('confirm'), `nothing confirmed: ${ops.join(', ')}`);
    assert.ok(ops.includes('refundBet'), `refunded: ${ops.join(', ')}`);
    const { rows } = await db.pool.query("SELECT op FROM wallet_calls WHERE bet_id = $1 AND op = 'confirm'", [betId]);
    assert.deepEqual(rows, [], 'no confirm ever queued');
    for (const [transactionId, count] of await sandbox.effects()) assert.ok(count <= 1, `${transactionId} took effect ${count} times`);
    // Read after the interruption window: the bet is rejected, not left pending.
    await until('the bet to read as rejected', async () => {
      const res = await graphql(second.first.url, userId, `{ bet(id: "${betId}") { status reasonCode } }`);
      const body = (await res.json()) as { data?: { bet?: { status: string; reasonCode: string } } };
      return body.data?.bet?.status === 'REJECTED' && body.data.bet.reasonCode === 'placement_interrupted';
    }, 15_000);
  } finally {
    second.child.kill('SIGTERM');
  }
});
