// What a user reads when the wallet does not take the stake: the wallet's own refusal (its message
// is meant for the user), or, when no ask reached it, a fixed reason — the transport's error
// (addresses, ports, the token endpoint's answer) is the operator's, kept in the call's attempts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from './betting-fixture.ts';
import { freePort } from './helpers/net.ts';
import { CLIENT } from './wallet-fixtures.ts';

const MEETING = 7101;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING);
});
after(() => f.close());

const win = (stake: number) => f.services.betting.placeBet(f.user(randomUUID()), {
  idempotencyKey: randomUUID(), type: 'WIN', stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }],
});

test('the wallet refuses the stake: wallet_refused with the wallet\'s message', async () => {
  const bet = await win(5000); // the sandbox's users hold 1,000
  assert.deepEqual([bet.status, bet.reasonCode], ['REJECTED', 'wallet_refused']);
  assert.equal(bet.reason, 'cash balance 1000.00 is lower than 5000.00');
});

test('the wallet is never reached: wallet_unavailable, and no address or port in the reason', async () => {
  const port = await freePort();
  await f.services.wallet.setWallet({ tenantId: f.tenantId, url: `http://127.0.0.1:${port}/wallet`, auth: 'client_credentials', ...CLIENT });
  try {
    const bet = await win(10);
    assert.deepEqual([bet.status, bet.reasonCode, bet.reason], ['REJECTED', 'wallet_unavailable', 'the wallet could not be reached; nothing was reserved']);
    const { rows } = await f.db.pool.query<{ error: string }>(
      "SELECT a.error FROM wallet_call_attempts a JOIN wallet_calls c USING (tenant_id, transaction_id) WHERE c.bet_id = $1 AND c.op = 'reserve'", [bet.id]);
    assert.ok(rows.length > 0 && rows.every((r) => /ECONNREFUSED|127\.0\.0\.1/.test(r.error)), `the operator reads why: ${JSON.stringify(rows)}`);
  } finally {
    await f.services.wallet.setWallet({ tenantId: f.tenantId, url: f.sandbox.url, auth: 'client_credentials', ...CLIENT });
  }
});
