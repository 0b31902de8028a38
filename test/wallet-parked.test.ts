// A parked call and the calls of its bet held behind it: the operator sees them (wallet failed
// lists what each parked call holds, wallet calls names the call a held one waits for), retry or
// resolve releases them in order, and a retry racing the workers of two processes sends each call
// once, in order. Real HTTP to the sandbox on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { credit, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  f = await walletFixture();
});
after(() => f.close());

/** A bet the sandbox has taken (reserved and confirmed): it takes credits of it. */
const bet = () => f.takenBet();
/** The credits a bet's calls were delivered in, by transactionId, as the wallet answered them. */
const delivered = (betId: string) => f.sandbox.requests()
  .filter((r) => r.status === 200 && (r.body as { betId?: string }).betId === betId).map((r) => r.transactionId);

test('wallet failed lists the calls each parked call holds; wallet calls names the call a held one waits for', async () => {
  const { betId, userId } = await bet();
  const [first, second, third] = await f.enqueue(credit(betId, userId), credit(betId, userId, '2.00'),
    { ...credit(betId, userId, '3.00'), transactionType: 'cashout' });
  f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 422 }]);
  await f.worker.drain();
  const parked = (await f.wallet.failed(f.tenantId)).calls.find((c) => c.call_id === first!.transactionId);
  assert.deepEqual(parked?.held_calls, [
    { call_id: second!.transactionId, seq: 2, op: 'credit', amount: '2.00', transaction_type: 'adjustreversetransaction' },
    { call_id: third!.transactionId, seq: 3, op: 'credit', amount: '3.00', transaction_type: 'cashout' },
  ]);
  const listed = (await f.wallet.callsOfBet(betId)).calls;
  assert.deepEqual(listed.map((c) => [c.status, c.held_by]), [['failed', null], ['pending', first!.transactionId], ['pending', first!.transactionId]]);

  await f.wallet.resolve(first!.transactionId, 'credited by hand');
  await f.worker.drain();
  assert.deepEqual((await f.wallet.callsOfBet(betId)).calls.map((c) => [c.status, c.held_by]), [['resolved', null], ['delivered', null], ['delivered', null]]);
  assert.deepEqual(delivered(betId), [second!.transactionId, third!.transactionId]);
});

test('a retry racing the workers of two processes: each call sent once, in order', async () => {
  const other = f.services().wallet;
  const worker = other.createWorker({ listen: false });
  try {
    for (let round = 0; round < 10; round++) {
      const { betId, userId } = await bet();
      const [first, second] = await f.enqueue(credit(betId, userId), credit(betId, userId));
      f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 503 }]);
      await f.worker.drain();
      assert.equal((await f.call(first!.transactionId)).status, 'pending', 'waiting after a failure');
      const retries = await Promise.allSettled([f.wallet.retry(first!.transactionId), worker.drain(), f.worker.drain(), other.retry(first!.transactionId)]);
      for (const r of retries) if (r.status === 'rejected') assert.match(String(r.reason), /wallet call .* (is|no longer)/);
      await f.worker.drain();
      assert.deepEqual(delivered(betId), [first!.transactionId, second!.transactionId]);
      const effects = await f.sandbox.effects();
      assert.deepEqual([effects.get(first!.transactionId), effects.get(second!.transactionId)], [1, 1]);
    }
  } finally {
    await other.close();
  }
});
