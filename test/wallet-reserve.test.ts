// The synchronous reserve (spec 3, 8) against the sandbox: reserved, rejected, and every way its
// outcome can stay unknown — the bet is not taken and no user money stays held — and the ways it
// is known although no answer came (the wallet was never reached).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sealReserveToken } from '../src/modules/wallet/delivery/reserve-token.ts';
import { writeOutboxRow } from '../src/modules/wallet/outbox/enqueue.ts';
import { freePort } from './helpers/net.ts';
import { reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 250, WAGERLINE_WALLET_LEASE_MS: 3000, WAGERLINE_WALLET_RESERVE_RETRIES: 2 } });
});
after(() => f.close());

const place = (amount = '10') => {
  const betId = randomUUID();
  const userId = randomUUID();
  return { betId, userId, reserve: () => f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount, bonusFlag: false, token: 'user-token', metadata: reserveMetadata(userId) }) };
};
const opening = { cash: '1000.00', bonus: '0.00', reserved: '0.00' };

test('reserved: the wallet holds the funds and the attempt is recorded', async () => {
  const p = place();
  const result = await p.reserve();
  assert.equal(result.outcome, 'reserved');
  assert.deepEqual(await f.sandbox.balances(p.userId), { cash: '990.00', bonus: '0.00', reserved: '10.00' });
  const row = await f.call(result.transactionId);
  assert.equal(row.status, 'delivered');
  assert.equal(row.secret_enc, null, 'the placement token is not kept once the reserve is delivered');
  assert.equal((await f.attempts(result.transactionId)).length, 1);
});

test('rejected: a 4xx such as INSUFFICIENT_FUNDS is returned with the wallet\'s code and message', async () => {
  const p = place('5000');
  const result = await p.reserve();
  assert.equal(result.outcome, 'rejected');
  assert.ok(result.outcome === 'rejected' && result.code === 'INSUFFICIENT_FUNDS' && result.httpStatus === 400 && result.message);
  const row = await f.call(result.transactionId);
  assert.equal(row.status, 'refused');
  assert.equal(row.secret_enc, null);
});

test('a 401 renews the token and asks again at once', async () => {
  await place().reserve();
  f.sandbox.revokeTokens();
  const result = await place().reserve();
  assert.equal(result.outcome, 'reserved');
  assert.deepEqual((await f.attempts(result.transactionId)).map((a) => a.http_status), [401, 200]);
});

test('apply-then-fail once: asking again with the same transactionId learns that it was reserved', async () => {
  const p = place();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'apply-then-fail' }]);
  const result = await p.reserve();
  assert.equal(result.outcome, 'reserved');
  assert.deepEqual((await f.attempts(result.transactionId)).map((a) => a.http_status), [500, 200]);
  assert.equal((await f.sandbox.effects()).get(result.transactionId), 1);
  assert.deepEqual(await f.sandbox.balances(p.userId), { cash: '990.00', bonus: '0.00', reserved: '10.00' });
});

test('never reached the wallet (no token): rejected, nothing to ask again in the background or refund', async () => {
  const p = place();
  f.wallet.http.forgetTokens();
  f.sandbox.injectFaults([{ op: 'auth/token', kind: 'status', status: 503, times: 3 }]);
  const result = await p.reserve();
  assert.ok(result.outcome === 'rejected' && result.httpStatus === null && /token request failed: HTTP 503/.test(result.message ?? ''), JSON.stringify(result));
  assert.equal(f.sandbox.requests().filter((r) => r.op === 'reserve' && (r.body as { betId?: string }).betId === p.betId).length, 0);
  assert.deepEqual((await f.wallet.callsOfBet(p.betId)).calls.map((c) => [c.op, c.status, c.attempts]), [['reserve', 'refused', 3]]);
});

test('never reached the wallet (connection refused): rejected, not unknown', async () => {
  const tenant = await f.tenants.createTenant({ name: 'Closed wallet' });
  await f.wallet.setWallet({ tenantId: tenant.tenant_id, url: `http://127.0.0.1:${await freePort()}`, auth: 'api_key', apiKey: 'k' });
  const userId = randomUUID();
  const betId = randomUUID();
  const result = await f.wallet.reserve({ tenantId: tenant.tenant_id, betId, userId, amount: '1', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
  assert.ok(result.outcome === 'rejected' && /ECONNREFUSED/.test(result.message ?? ''), JSON.stringify(result));
  assert.deepEqual((await f.wallet.callsOfBet(betId)).calls.map((c) => [c.op, c.status]), [['reserve', 'refused']]);
});

test('unknown after every ask (hang): not taken; the worker learns the outcome and refunds', async () => {
  const p = place();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'hang', times: 3 }]);
  const result = await p.reserve();
  assert.equal(result.outcome, 'unknown');
  assert.ok(result.outcome === 'unknown' && result.refundQueued && /timeout/.test(result.error));
  assert.equal((await f.attempts(result.transactionId)).length, 3, 'asked 1 + WAGERLINE_WALLET_RESERVE_RETRIES times');
  await f.worker.drain();
  const calls = (await f.wallet.callsOfBet(p.betId)).calls;
  assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(p.userId), opening);
});

test('unknown after every ask (apply-then-fail): the reservation took effect once and is refunded', async () => {
  const p = place();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'apply-then-fail', times: 3 }]);
  const result = await p.reserve();
  assert.equal(result.outcome, 'unknown');
  await f.worker.drain();
  assert.equal((await f.sandbox.effects()).get(result.transactionId), 1);
  assert.deepEqual(await f.sandbox.balances(p.userId), opening);
});

test('unknown, then the wallet refuses the reserve: the conditional refund is never sent (spec 3)', async () => {
  const p = place('5000');
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 503, times: 3 }]);
  const result = await p.reserve();
  assert.equal(result.outcome, 'unknown');
  await f.worker.drain();
  const calls = (await f.wallet.callsOfBet(p.betId)).calls;
  assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'refused'], ['refundBet', 'skipped']]);
  assert.equal(f.sandbox.requests().filter((r) => r.op === 'refundBet' && (r.body as { betId?: string }).betId === p.betId).length, 0);
});

// A 401 (the user's token, expired since) or a 409 (a conflict) answering an ask that follows one
// that may have reserved proves nothing of that ask: taken as a refusal, the refund queued behind
// it was skipped and a reservation made by the first ask stayed held for ever.
for (const [name, refusal] of [['401 (token refused)', { status: 401, times: 2 }], ['403 (forbidden)', { status: 403, times: 1 }],
  ['409 (a conflict)', { status: 409, times: 1 }]] as const) {
  test(`placement: applied but unanswered, then ${name}: unknown, and the worker's next ask releases it`, async () => {
    const p = place();
    f.sandbox.injectFaults([{ op: 'reserve', kind: 'apply-then-fail' }, { op: 'reserve', kind: 'status', ...refusal }]);
    const result = await p.reserve();
    assert.equal(result.outcome, 'unknown', JSON.stringify(result));
    await f.worker.drain();
    const calls = (await f.wallet.callsOfBet(p.betId)).calls;
    assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
    assert.equal((await f.sandbox.effects()).get(result.transactionId), 1);
    assert.deepEqual(await f.sandbox.balances(p.userId), opening);
  });
}

/** A reserve applied by the wallet but never answered, then refused with a 401 when the worker asks: parked. */
async function parkedAfter401() {
  const p = place();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'apply-then-fail', times: 3 }]);
  const result = await p.reserve();
  assert.equal(result.outcome, 'unknown');
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 401, times: 2 }]);
  await f.worker.drain();
  const calls = async () => (await f.wallet.callsOfBet(p.betId)).calls;
  return { ...p, transactionId: result.transactionId, calls, ops: async () => (await calls()).map((c) => [c.op, c.status]) };
}

test('worker: a 401 after asks that may have reserved parks the reserve failed, its refund kept; retry releases it', async () => {
  const p = await parkedAfter401();
  assert.deepEqual(await p.ops(), [['reserve', 'failed'], ['refundBet', 'pending']]);
  assert.match((await p.calls())[0]!.last_error ?? '', /refused \(HTTP 401.*may hold the stake/);
  assert.deepEqual((await f.wallet.failed()).calls.map((c) => c.transaction_id), [p.transactionId], 'listed for an operator');
  assert.deepEqual(await f.sandbox.balances(p.userId), { cash: '990.00', bonus: '0.00', reserved: '10.00' }, 'still held');
  await f.wallet.retry(p.transactionId);
  await f.worker.drain();
  assert.deepEqual(await p.ops(), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(p.userId), opening);
});

test('worker: a reserve parked after a 401 and found held at the wallet is resolved as reserved: its refund goes out', async () => {
  const p = await parkedAfter401();
  const resolved = await f.wallet.resolve(p.transactionId, 'held at the wallet (checked by phone)', undefined, { reserved: true });
  assert.equal(resolved.status, 'resolved');
  await f.worker.drain();
  assert.deepEqual(await p.ops(), [['reserve', 'resolved'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(p.userId), opening);
});

test('placement died mid-reserve (lease ran out): the worker asks again and refunds', async () => {
  const betId = randomUUID();
  const userId = randomUUID();
  const transactionId = randomUUID();
  const past = new Date(f.clock().getTime() - 60_000);
  const token = sealReserveToken(f.box, { tenant_id: f.tenantId, transaction_id: transactionId, bet_id: betId, user_id: userId }, 'user-token');
  await writeOutboxRow(f.db.pool, {
    tenantId: f.tenantId, transactionId, betId, userId, op: 'reserve', amount: '7.00', bonusFlag: false,
    extra: { metadata: reserveMetadata(userId) }, secretEnc: token, now: past,
    lease: { owner: 'dead-process', until: new Date(past.getTime() + 1000) },
  });
  await f.worker.drain();
  const calls = (await f.wallet.callsOfBet(betId)).calls;
  assert.deepEqual(calls.map((c) => [c.op, c.status]), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.equal(calls[0]!.attempt_log[0]!.outcome, 'interrupted');
  const sent = f.sandbox.requests().find((r) => r.op === 'reserve' && (r.body as { transactionId?: string }).transactionId === transactionId);
  assert.equal((sent!.body as { token?: string }).token, 'user-token');
  assert.deepEqual(await f.sandbox.balances(userId), opening);
});
