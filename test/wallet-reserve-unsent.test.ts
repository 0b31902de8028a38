// A reserve whose lease could run out before its first ask is never sent. It used to be left
// `sending` for the rescue, which then really reserved the stake for a bet already answered (and
// refunded it after): now, still held by its sender, it is closed as never reached.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  // A lease shorter than its renewal period (200 ms at least): about to run out as soon as it is held.
  f = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 100, WAGERLINE_WALLET_LEASE_MS: 150 } });
});
after(() => f.close());

test('a reserve not sent because its lease was about to run out: rejected, refused, never sent later', async () => {
  const betId = randomUUID();
  const userId = randomUUID();
  const result = await f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '10', bonusFlag: false, token: 'user-token', metadata: reserveMetadata(userId) });
  assert.ok(result.outcome === 'rejected' && result.httpStatus === null && /^not sent: lease about to run out/.test(result.message ?? ''), JSON.stringify(result));
  await new Promise((resolve) => setTimeout(resolve, 300)); // past the lease: a rescue would take a row still `sending`
  await f.worker.drain();
  assert.deepEqual((await f.wallet.callsOfBet(betId)).calls.map((c) => [c.op, c.status]), [['reserve', 'refused']]);
  assert.equal(f.sandbox.requests().filter((r) => (r.body as { betId?: string } | undefined)?.betId === betId).length, 0, 'the wallet never asked');
  assert.deepEqual(await f.sandbox.balances(userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
});
