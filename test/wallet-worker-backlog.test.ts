// A wallet whose slots are all taken is claimed again as soon as a call gives its slot back, not at
// the next poll. A call holds its slot until its result is written, and record() claims again just
// before that: the claim it makes finds no slot, so the slot's release must claim again.
import { after, before, test } from 'node:test';
import { walletFixture, type WalletFixture, until } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  // A long poll: only the worker's own re-claims after each recorded batch move the backlog.
  f = await walletFixture({ concurrency: 2, sandbox: { latencyMs: 100 }, settings: { WAGERLINE_WALLET_POLL_MS: 60_000 } });
});
after(() => f.close());

test('a backlog of 12 calls on a wallet with 2 slots is delivered round after round, without waiting for the poll', async () => {
  const calls = await f.enqueue(...await Promise.all(Array.from({ length: 12 }, () => f.creditOfTakenBet())));
  const { service, worker } = f.loggedWorker();
  await worker.start();
  try {
    await until('every call delivered', async () => {
      const { rows } = await f.db.pool.query("SELECT count(*)::int AS n FROM wallet_calls WHERE transaction_id = ANY ($1::uuid[]) AND status = 'delivered'",
        [calls.map((c) => c.transactionId)]);
      return rows[0].n === calls.length;
    }, 8_000);
  } finally {
    await worker.stop();
    await service.close();
  }
});
