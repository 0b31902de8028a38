// Leases: a sender never keeps a call in flight once its lease is gone, so no call is ever in
// flight from two senders at once. The worker and the synchronous reserve abandon a call when
// another sender took it over or when the lease could run out before its next renewal (the
// database stopped answering, or here: the injected clock moved past it). Real HTTP to the
// sandbox on 127.0.0.1; the waits are for the renewal ticks (a third of a 1.2 s lease).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Counter } from 'prom-client';
import { reserveMetadata, walletFixture, type WalletFixture, until } from './wallet-fixtures.ts';

const LEASE_MS = 1200;
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 1000, WAGERLINE_WALLET_LEASE_MS: LEASE_MS, WAGERLINE_WALLET_RESERVE_RETRIES: 0 } });
});
after(() => f.close());

const arrived = (field: 'transactionId' | 'betId', id: string) => () =>
  f.sandbox.requests().some((r) => (r.body as Record<string, unknown> | undefined)?.[field] === id);

test('worker: a call taken over by another sender is abandoned at the next renewal, and nothing is recorded', async () => {
  const { logs, service, worker } = f.loggedWorker();
  const [call] = await f.enqueue(await f.creditOfTakenBet());
  f.sandbox.injectFaults([{ op: 'credit', kind: 'hang' }]);
  await worker.start();
  try {
    await until('the call to reach the wallet', arrived('transactionId', call!.transactionId));
    await f.db.pool.query("UPDATE wallet_calls SET lease_owner = 'another-process/1' WHERE transaction_id = $1", [call!.transactionId]);
    await until('the worker to let go of the call', () => worker.inFlight() === 0);
    const abandoned = logs.find((l) => l.message === 'wallet call abandoned');
    assert.match(String(abandoned?.fields?.reason), /^lease lost/);
    assert.doesNotMatch(String(abandoned?.fields?.reason), /timeout/, 'abandoned before the call bound cut it');
    const row = await f.call(call!.transactionId);
    assert.deepEqual([row.status, row.lease_owner, row.attempts], ['sending', 'another-process/1', 0]);
    assert.deepEqual(await f.attempts(call!.transactionId), []);
    const lost = (await (f.registry.getSingleMetric('wallet_calls_total') as Counter).get()).values
      .find((v) => v.labels.outcome === 'lease_lost' && v.labels.operation === 'credit');
    assert.equal(lost?.value, 1);
  } finally {
    await worker.stop();
    await service.close();
  }
});

test('worker: a lease that could run out unrenewed is let go; the call is taken over and sent once more', async () => {
  const { logs, service, worker } = f.loggedWorker();
  const [call] = await f.enqueue(await f.creditOfTakenBet());
  f.sandbox.injectFaults([{ op: 'credit', kind: 'hang' }]);
  await worker.start();
  try {
    await until('the call to reach the wallet', arrived('transactionId', call!.transactionId));
    f.clock.advance(LEASE_MS); // as if the renewals had failed for a whole lease
    await until('the call to be delivered by the takeover', async () => (await f.call(call!.transactionId)).status === 'delivered');
    assert.ok(logs.some((l) => l.message === 'wallet call abandoned'));
    assert.deepEqual((await f.attempts(call!.transactionId)).map((a) => a.outcome), ['interrupted', 'success']);
    assert.equal((await f.sandbox.effects()).get(call!.transactionId), 1);
  } finally {
    await worker.stop();
    await service.close();
  }
});

test('reserve: when the rescue takes the call over, placement stops asking and answers unknown', async () => {
  const betId = randomUUID();
  const userId = randomUUID();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'hang' }]);
  const pending = f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '4', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
  await until('the reserve to reach the wallet', arrived('betId', betId));
  await f.db.pool.query("UPDATE wallet_calls SET lease_owner = 'rescue' WHERE bet_id = $1", [betId]);
  const result = await pending;
  assert.equal(result.outcome, 'unknown');
  assert.ok(result.outcome === 'unknown' && /lease lost/.test(result.error) && !/timeout/.test(result.error));
  const row = await f.call(result.transactionId);
  assert.deepEqual([row.status, row.lease_owner, row.attempts], ['sending', 'rescue', 0], 'placement wrote nothing after losing the lease');
});

test('reserve: a lease that could run out unrenewed ends the asking; the rescue re-asks and refunds', async () => {
  const betId = randomUUID();
  const userId = randomUUID();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'hang' }]);
  const pending = f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '4', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
  await until('the reserve to reach the wallet', arrived('betId', betId));
  f.clock.advance(LEASE_MS);
  const result = await pending;
  assert.ok(result.outcome === 'unknown' && /lease about to run out/.test(result.error), JSON.stringify(result));
  await f.worker.drain();
  const calls = (await f.wallet.callsOfBet(betId)).calls;
  assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
});
