// An API-key wallet refusing our key with 403 (spec 5.3 leaves that option's shape unshown; 7.2
// shows 401 as the sample) says what a 401 says: the credentials were refused, which the operator
// can fix. A confirm, refundBet, debit or credit so refused follows the retry schedule, as after a
// 401, instead of being parked at once; a reserve so refused is treated as after a 401. Real
// PostgreSQL and the reference wallet sandbox on 127.0.0.1, taking an API key.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { reserveAndConfirm, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const MIN = 60_000;
const KEY_REFUSED = { message: 'API key not accepted', code: 'FORBIDDEN', statusCode: 403 };
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ apiKey: 'operator-key-1', settings: { WAGERLINE_WALLET_TIMEOUT_MS: 250, WAGERLINE_WALLET_RESERVE_RETRIES: 2 } });
});
after(() => f.close());

const outcomes = async (transactionId: string) => (await f.attempts(transactionId)).map((a) => [a.http_status, a.outcome]);

test('a credit refused with 403 counts as a failed attempt on the schedule, as a 401 does, and goes out on the next', async () => {
  const [call] = await f.enqueue(await f.creditOfTakenBet());
  f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 403, body: KEY_REFUSED }]);
  await f.worker.drain();
  const row = await f.call(call!.transactionId);
  assert.deepEqual([row.status, row.failures, row.last_http_status, row.last_code], ['pending', 1, 403, 'FORBIDDEN'], 'not parked at once');
  assert.equal(row.next_attempt_at.getTime(), f.clock().getTime() + 5 * MIN);
  assert.deepEqual(await outcomes(call!.transactionId), [[403, 'unauthorized']], 'one exchange: an API key has nothing to renew');
  f.clock.set(row.next_attempt_at);
  await f.worker.drain();
  assert.equal((await f.call(call!.transactionId)).status, 'delivered');
  assert.equal((await f.sandbox.effects()).get(call!.transactionId), 1);
});

test('a confirm refused with 403 keeps its place: the bet\'s later calls wait behind it and follow it once it goes out', async () => {
  const { betId, userId, input, confirm } = reserveAndConfirm(f.tenantId);
  assert.equal((await f.wallet.reserve(input)).outcome, 'reserved');
  f.sandbox.injectFaults([{ op: 'confirm', kind: 'status', status: 403, body: KEY_REFUSED, times: 2 }]);
  const [confirmed, settled] = await f.enqueue(confirm, { betId, userId, op: 'settleBet', amount: '25', bonusFlag: false });
  await f.worker.drain();
  for (const gap of [5, 10]) {
    const row = await f.call(confirmed!.transactionId);
    assert.equal(row.status, 'pending');
    assert.equal(row.next_attempt_at.getTime(), f.clock().getTime() + gap * MIN);
    assert.equal((await f.call(settled!.transactionId)).status, 'pending');
    f.clock.set(row.next_attempt_at);
    await f.worker.drain();
  }
  assert.deepEqual([(await f.call(confirmed!.transactionId)).status, (await f.call(settled!.transactionId)).status], ['delivered', 'delivered']);
  assert.deepEqual(await outcomes(confirmed!.transactionId), [[403, 'unauthorized'], [403, 'unauthorized'], [200, 'success']]);
  assert.deepEqual(await f.sandbox.balances(userId), { cash: '1015.00', bonus: '0.00', reserved: '0.00' });
});

test('a reserve refused with 403 is rejected, as after a 401: the bet is not taken', async () => {
  const { input } = reserveAndConfirm(f.tenantId);
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 403, body: KEY_REFUSED }]);
  const result = await f.wallet.reserve(input);
  assert.ok(result.outcome === 'rejected' && result.httpStatus === 403 && result.code === 'FORBIDDEN', JSON.stringify(result));
  assert.equal((await f.call(result.transactionId)).status, 'refused');
});

test('a reserve refused with 403 after an ask that may have reserved is parked, its refund kept behind it, as after a 401', async () => {
  const { betId, userId, input } = reserveAndConfirm(f.tenantId);
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'apply-then-fail' }, { op: 'reserve', kind: 'status', status: 403, body: KEY_REFUSED, times: 2 }]);
  const result = await f.wallet.reserve(input);
  assert.equal(result.outcome, 'unknown', 'no proof that the first ask reserved nothing');
  await f.worker.drain();
  const calls = (await f.wallet.callsOfBet(betId)).calls;
  assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'failed'], ['refundBet', 'pending']]);
  assert.match(calls[0]!.last_error!, /refused \(HTTP 403.*may hold the stake/);
  assert.deepEqual(await f.sandbox.balances(userId), { cash: '990.00', bonus: '0.00', reserved: '10.00' }, 'held until an operator checks');
  // With the key taken again, an operator's retry learns that it was reserved and the refund goes out.
  await f.wallet.retry(result.transactionId);
  await f.worker.drain();
  assert.deepEqual((await f.wallet.callsOfBet(betId)).calls.map((c) => [c.op, c.status]), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
});
