// Ways a call could get stuck or go out when it must not: answers PostgreSQL cannot store as
// given (U+0000), a parked reserve closed by hand (its conditional refund must not be sent,
// spec 3), and a second reserve for one bet (it would jump the bet's queue).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { MAX_RETRIES } from '../src/wallet-protocol/responses.ts';
import { credit, reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 250, WAGERLINE_WALLET_RESERVE_RETRIES: 1 } });
});
after(() => f.close());

const reserve = (betId: string, userId = randomUUID()) =>
  f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '10', bonusFlag: false, token: 'user-token', metadata: reserveMetadata(userId) });

test('an error answer holding U+0000, raw or escaped in its JSON, is recorded and the call parked', async () => {
  const bodies = ['{"message":"no\u0000pe","code":"RAW","statusCode":400}', '{"message":"no\\u0000pe","code":"ESC\\u0000","statusCode":400}'];
  for (const body of bodies) {
    const [call] = await f.enqueue(credit());
    f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 400, body }]);
    await f.worker.drain();
    const row = await f.call(call!.transactionId);
    assert.equal(row.status, 'failed', body);
    assert.equal(row.lease_owner, null);
    const [attempt] = await f.attempts(call!.transactionId);
    assert.equal(attempt.http_status, 400);
    assert.ok(!attempt.response_body.includes('\u0000'));
  }
  const escaped = (await f.wallet.failed(f.tenantId)).calls.map((c) => c.last_code);
  assert.ok(escaped.includes('ESC\uFFFD'), JSON.stringify(escaped));
});

test('a reserve answered with U+0000 in a body that is not JSON is asked again, and recorded', async () => {
  const betId = randomUUID();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 200, body: 'ok\u0000' }]);
  const result = await reserve(betId);
  assert.equal(result.outcome, 'reserved');
  const attempts = await f.attempts(result.transactionId);
  assert.deepEqual(attempts.map((a) => a.outcome), ['retry', 'success']);
  assert.equal(attempts[0].response_body, 'ok\uFFFD');
});

test('resolving a parked reserve by hand skips the refundBet queued on its success (spec 3)', async () => {
  const betId = randomUUID();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 503, times: 2 + MAX_RETRIES + 1 }]);
  const result = await reserve(betId);
  assert.equal(result.outcome, 'unknown');
  for (let i = 0; i <= MAX_RETRIES; i++) {
    const row = await f.call(result.transactionId);
    if (row.status === 'failed') break;
    f.clock.set(row.next_attempt_at);
    await f.worker.drain();
  }
  assert.deepEqual((await f.wallet.callsOfBet(betId)).calls.map((c) => [c.op, c.status]), [['reserve', 'failed'], ['refundBet', 'pending']]);
  await f.wallet.resolve(result.transactionId, 'checked with the operator: no reservation was made');
  await f.worker.drain();
  const calls = (await f.wallet.callsOfBet(betId)).calls;
  assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'resolved'], ['refundBet', 'skipped']]);
  const refundsSent = f.sandbox.requests().filter((r) => r.op === 'refundBet' && (r.body as { betId?: string })?.betId === betId);
  assert.equal(refundsSent.length, 0);
});

test('a reserve must open its bet\'s sequence: a second one is refused and writes nothing', async () => {
  const betId = randomUUID();
  const first = await reserve(betId);
  assert.equal(first.outcome, 'reserved');
  const before = (await f.wallet.callsOfBet(betId)).calls.length;
  await assert.rejects(reserve(betId), (error: unknown) => error instanceof AppError && error.code === 'wallet_bet_has_calls');
  assert.equal((await f.wallet.callsOfBet(betId)).calls.length, before);
  assert.equal(f.sandbox.requests().filter((r) => r.op === 'reserve' && (r.body as { betId?: string })?.betId === betId).length, 1);
});

test('wallet failed counts every parked call, however few it lists (the oldest first)', async () => {
  const before = (await f.wallet.failed(f.tenantId)).count;
  const calls = await f.enqueue(credit(), credit(), credit());
  f.sandbox.injectFaults(calls.map(() => ({ op: 'credit' as const, kind: 'status' as const, status: 400 })));
  await f.worker.drain();
  const listed = await f.wallet.failed(f.tenantId, 2);
  assert.equal(listed.count, before + 3);
  assert.equal(listed.calls.length, 2);
});
