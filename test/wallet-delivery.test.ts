// Durable delivery against the reference wallet sandbox over real HTTP: exact bodies, ordering per
// bet under concurrency, every retry rule, the schedule (injected clock), token renewal, parking.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { MAX_RETRIES } from '../src/wallet-protocol/responses.ts';
import { credit, reserveAndConfirm, reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const MIN = 60_000;
let f: WalletFixture;

before(async () => {
  f = await walletFixture({ concurrency: 20 });
});
after(() => f.close());

describe('bodies', () => {
  test('every operation is sent with exactly the fields of spec 2.4/2.5, amounts in dollars', async () => {
    const betId = randomUUID();
    const userId = randomUUID();
    const reserved = await f.wallet.reserve({
      tenantId: f.tenantId, betId, userId, amount: '10', bonusFlag: false, token: 'placement-token', metadata: reserveMetadata(userId),
    });
    assert.equal(reserved.outcome, 'reserved');
    const betMetadata = { id: betId, ticketId: randomUUID(), tenantId: f.tenantId, userId, betTypeId: 1, statusId: 2, createdAt: '2026-01-01T00:00:00.000Z', amount: 7.5, fixedOdds: 3.2, percentage: 100, legs: [] };
    const [confirm, refund, settle, debit, creditCall] = await f.enqueue(
      { betId, userId, op: 'confirm', amount: '7.5', bonusFlag: false, betMetadata },
      { betId, userId, op: 'refundBet', amount: '0.50', bonusFlag: false },
      { betId, userId, op: 'settleBet', amount: '24', bonusFlag: false },
      { betId, userId, op: 'debit', amount: '1.25', bonusFlag: false, transactionType: 'deductbetwin' },
      // An adjustment: a settled bet is not cashed out (docs/bets-admin.md), and the wallet refuses that.
      { betId, userId, op: 'credit', amount: '2', bonusFlag: false, transactionType: 'adjustreversetransaction' },
    );
    await f.worker.drain();
    const sent = f.sandbox.requests().filter((r) => (r.body as { betId?: string } | undefined)?.betId === betId);
    assert.deepEqual(sent.map((r) => r.op), ['reserve', 'confirm', 'refundBet', 'settleBet', 'debit', 'credit']);
    const common = { betId, userId, bonusFlag: false };
    assert.deepEqual(sent[0]!.body, { ...common, transactionId: reserved.transactionId, amount: 10, token: 'placement-token', metadata: reserveMetadata(userId) });
    assert.deepEqual(sent[1]!.body, { ...common, transactionId: confirm!.transactionId, amount: 7.5, betMetadata });
    assert.deepEqual(sent[2]!.body, { ...common, transactionId: refund!.transactionId, amount: 0.5 });
    assert.deepEqual(sent[3]!.body, { ...common, transactionId: settle!.transactionId, amount: 24 });
    assert.deepEqual(sent[4]!.body, { ...common, transactionId: debit!.transactionId, amount: 1.25, transactionType: 'deductbetwin' });
    assert.deepEqual(sent[5]!.body, { ...common, transactionId: creditCall!.transactionId, amount: 2, transactionType: 'adjustreversetransaction' });
    assert.ok(sent.every((r) => r.status === 200));
    // 1000 − 7.50 confirmed + 0.50 refunded + 24 won − 1.25 debited + 2 credited: each applied once, as sent.
    assert.deepEqual(await f.sandbox.balances(userId), { cash: '1017.75', bonus: '0.00', reserved: '0.00' });
  });

  test('enqueue refuses what spec 2.4 does not allow, writing nothing', async () => {
    const betId = randomUUID();
    await assert.rejects(f.enqueue({ ...credit(betId), transactionType: 'deductbetwin' }), /transactionType of credit must be one of/);
    await assert.rejects(f.enqueue({ ...credit(betId), amount: '1.001' }), /amount must be a decimal string/);
    await assert.rejects(f.enqueue({ ...credit(betId), userId: 'nope' }), /userId must be a UUID/);
    await assert.rejects(f.enqueue({ ...credit(betId), op: 'reserve' as never }), /reserve is sent synchronously/);
    const { rows } = await f.db.pool.query('SELECT count(*)::int AS n FROM wallet_calls WHERE bet_id = $1', [betId]);
    assert.equal(rows[0].n, 0);
  });
});

describe('ordering', () => {
  test('a bet\'s calls go one at a time in causal order while bets run concurrently', async () => {
    const bets = Array.from({ length: 60 }, () => ({ betId: randomUUID(), userId: randomUUID() }));
    // reserve → confirm → settleBet → debit → credit: the sandbox refuses confirm before reserve
    // and settleBet before confirm, so any overtaking shows up as a refused call.
    const reserved = await Promise.all(bets.map(({ betId, userId }) =>
      f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '5', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) })));
    assert.deepEqual(reserved.filter((r) => r.outcome !== 'reserved'), []);
    const expected = new Map<string, string[]>();
    for (const step of ['confirm', 'settleBet', 'debit', 'credit'] as const) {
      await Promise.all(bets.map(async ({ betId, userId }) => {
        const extra = step === 'confirm' ? { betMetadata: { id: betId, legs: [] } } : step === 'debit' ? { transactionType: 'betwincancelled' } : step === 'credit' ? { transactionType: 'betpartialrefund' } : {};
        const [call] = await f.enqueue({ betId, userId, op: step, amount: '1', bonusFlag: false, ...extra });
        expected.set(betId, [...(expected.get(betId) ?? []), call!.transactionId]);
      }));
    }
    f.sandbox.injectFaults([{ kind: 'status', status: 503, times: 15 }]);
    await f.worker.drain();
    f.clock.advance(5 * MIN);
    await f.worker.drain();
    const arrivals = new Map<string, string[]>();
    for (const r of f.sandbox.requests()) {
      const body = r.body as { betId?: string; transactionId?: string } | undefined;
      if (!body?.betId || !expected.has(body.betId) || r.op === 'reserve' || r.status !== 200) continue;
      arrivals.set(body.betId, [...(arrivals.get(body.betId) ?? []), body.transactionId!]);
    }
    for (const [betId, ids] of expected) assert.deepEqual(arrivals.get(betId), ids, `bet ${betId}`);
    const { rows } = await f.db.pool.query(
      "SELECT status, count(*)::int AS n FROM wallet_calls WHERE bet_id = ANY($1) GROUP BY status ORDER BY status", [bets.map((b) => b.betId)]);
    // Every call delivered; each bet's placement guard released by its confirm (docs/wallet-delivery.md).
    assert.deepEqual(rows, [{ status: 'delivered', n: 300 }, { status: 'skipped', n: 60 }]);
    const effects = await f.sandbox.effects();
    for (const ids of expected.values()) for (const id of ids) assert.equal(effects.get(id), 1);
  });
});

describe('retries', () => {
  beforeEach(() => f.worker.drain());

  const retried = [
    { kind: 'status', status: 500 }, { kind: 'status', status: 503 }, { kind: 'status', status: 408 }, { kind: 'status', status: 429 },
    { kind: 'garbage' }, { kind: 'empty' }, { kind: 'html' }, { kind: 'reset' }, { kind: 'apply-then-fail' },
  ] as const;
  for (const fault of retried) {
    test(`${fault.kind}${'status' in fault ? ` ${fault.status}` : ''} is retried 5 minutes later with the same transactionId`, async () => {
      const [call] = await f.enqueue(await f.creditOfTakenBet());
      f.sandbox.injectFaults([{ op: 'credit', ...fault }]);
      await f.worker.drain();
      const row = await f.call(call!.transactionId);
      assert.equal(row.status, 'pending');
      assert.equal(row.failures, 1);
      assert.equal(row.next_attempt_at.getTime(), f.clock().getTime() + 5 * MIN);
      const [first] = await f.attempts(call!.transactionId);
      assert.equal(first.outcome, 'retry');
      if ('status' in fault) assert.equal(first.http_status, fault.status);
      f.clock.advance(5 * MIN - 1);
      await f.worker.drain();
      assert.equal((await f.call(call!.transactionId)).status, 'pending', 'not before it is due');
      f.clock.advance(1);
      await f.worker.drain();
      assert.equal((await f.call(call!.transactionId)).status, 'delivered');
      assert.equal((await f.sandbox.effects()).get(call!.transactionId), 1);
      const sent = f.sandbox.requests().filter((r) => (r.body as { transactionId?: string })?.transactionId === call!.transactionId);
      assert.equal(sent.length, 2);
      assert.deepEqual(sent[0]!.body, sent[1]!.body);
    });
  }

  for (const status of [400, 403, 404, 409, 422]) {
    test(`${status} is final: the call is parked as failed with the error body as given`, async () => {
      const [call] = await f.enqueue(await f.creditOfTakenBet());
      f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status, body: { message: 'nope', code: 'NOPE', statusCode: status } }]);
      await f.worker.drain();
      const row = await f.call(call!.transactionId);
      assert.equal(row.status, 'failed');
      assert.equal(row.last_http_status, status);
      assert.equal(row.last_code, 'NOPE');
      const [attempt] = await f.attempts(call!.transactionId);
      assert.deepEqual(JSON.parse(attempt.response_body), { message: 'nope', code: 'NOPE', statusCode: status });
      assert.equal(attempt.outcome, 'final');
    });
  }

  test('a settleBet the wallet refuses (4xx) is retried on the schedule, not parked at once (spec 3, 7.3, 8: settleBet retried on failure)', async () => {
    const { betId, userId, input, confirm } = reserveAndConfirm(f.tenantId);
    assert.equal((await f.wallet.reserve(input)).outcome, 'reserved');
    const refusal = { message: 'account locked', code: 'ACCOUNT_LOCKED', statusCode: 409 };
    f.sandbox.injectFaults([{ op: 'settleBet', kind: 'status', status: 409, body: refusal, times: 2 }]);
    const [, settle] = await f.enqueue(confirm, { betId, userId, op: 'settleBet', amount: '35', bonusFlag: false });
    await f.worker.drain();
    let row = await f.call(settle!.transactionId);
    assert.deepEqual([row.status, row.failures, row.last_code], ['pending', 1, 'ACCOUNT_LOCKED']);
    assert.equal(row.next_attempt_at.getTime(), f.clock().getTime() + 5 * MIN);
    f.clock.set(row.next_attempt_at);
    await f.worker.drain();
    row = await f.call(settle!.transactionId);
    assert.deepEqual([row.status, row.failures], ['pending', 2]);
    assert.equal(row.next_attempt_at.getTime(), f.clock().getTime() + 10 * MIN);
    // An operator who has fixed the cause need not wait for the schedule: retry sends it now.
    assert.equal((await f.wallet.retry(settle!.transactionId)).status, 'pending');
    row = await f.call(settle!.transactionId);
    assert.deepEqual([row.failures, row.next_attempt_at.getTime()], [0, f.clock().getTime()]);
    await f.worker.drain();
    assert.equal((await f.call(settle!.transactionId)).status, 'delivered');
    assert.deepEqual((await f.attempts(settle!.transactionId)).map((a) => [a.http_status, a.outcome]), [[409, 'final'], [409, 'final'], [200, 'success']]);
    assert.equal((await f.sandbox.effects()).get(settle!.transactionId), 1, 'paid once');
    assert.deepEqual(await f.sandbox.balances(userId), { cash: '1025.00', bonus: '0.00', reserved: '0.00' });
  });

  test('a settleBet refused on every attempt is parked after the fifth retry, as any failure', async () => {
    const { betId, userId, input, confirm } = reserveAndConfirm(f.tenantId);
    assert.equal((await f.wallet.reserve(input)).outcome, 'reserved');
    f.sandbox.injectFaults([{ op: 'settleBet', kind: 'status', status: 400, body: { message: 'no', code: 'NO', statusCode: 400 }, times: MAX_RETRIES + 1 }]);
    const [, settle] = await f.enqueue(confirm, { betId, userId, op: 'settleBet', amount: '35', bonusFlag: false });
    await f.worker.drain();
    for (let i = 0; i < MAX_RETRIES; i++) {
      const row = await f.call(settle!.transactionId);
      assert.equal(row.status, 'pending');
      f.clock.set(row.next_attempt_at);
      await f.worker.drain();
    }
    const row = await f.call(settle!.transactionId);
    assert.deepEqual([row.status, row.failures], ['failed', MAX_RETRIES + 1]);
    assert.equal((await f.sandbox.effects()).get(settle!.transactionId) ?? 0, 0);
  });

  test('the schedule: 5, 10, 20, 60, 60 minutes, then parked after the fifth retry (spec 8)', async () => {
    const [call] = await f.enqueue(await f.creditOfTakenBet());
    f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 502, times: MAX_RETRIES + 1 }]);
    const gaps: number[] = [];
    await f.worker.drain();
    for (let i = 0; i < MAX_RETRIES; i++) {
      const row = await f.call(call!.transactionId);
      assert.equal(row.status, 'pending');
      gaps.push((row.next_attempt_at.getTime() - f.clock().getTime()) / MIN);
      f.clock.set(row.next_attempt_at);
      await f.worker.drain();
    }
    assert.deepEqual(gaps, [5, 10, 20, 60, 60]);
    const row = await f.call(call!.transactionId);
    assert.equal(row.status, 'failed');
    assert.equal((await f.attempts(call!.transactionId)).length, MAX_RETRIES + 1);
    assert.equal((await f.sandbox.effects()).get(call!.transactionId) ?? 0, 0);
  });

  test('401: the token is renewed once and the call sent again at once', async () => {
    const [call] = await f.enqueue(await f.creditOfTakenBet());
    await f.worker.drain();
    const [second] = await f.enqueue(await f.creditOfTakenBet());
    f.sandbox.revokeTokens();
    const before = f.sandbox.requests().filter((r) => r.op === 'auth/token').length;
    await f.worker.drain();
    assert.equal((await f.call(second!.transactionId)).status, 'delivered');
    const attempts = await f.attempts(second!.transactionId);
    assert.deepEqual(attempts.map((a) => [a.http_status, a.outcome]), [[401, 'unauthorized'], [200, 'success']]);
    assert.equal(f.sandbox.requests().filter((r) => r.op === 'auth/token').length, before + 1);
    assert.equal((await f.call(call!.transactionId)).attempts, 1);
  });

  test('a 401 that a fresh token does not cure counts as a failure on the schedule (not final)', async () => {
    const [call] = await f.enqueue(await f.creditOfTakenBet());
    const invalid = { message: 'token refused', code: 'INVALID_TOKEN', statusCode: 401 };
    f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 401, times: 2, body: invalid }]);
    await f.worker.drain();
    const row = await f.call(call!.transactionId);
    assert.deepEqual([row.status, row.failures, row.last_code], ['pending', 1, 'INVALID_TOKEN']);
    assert.equal(row.next_attempt_at.getTime(), f.clock().getTime() + 5 * MIN);
    assert.deepEqual((await f.attempts(call!.transactionId)).map((a) => [a.http_status, a.outcome]), [[401, 'unauthorized'], [401, 'unauthorized']]);
  });

  test('a token endpoint that fails is retried on the schedule, and the call is not sent without a token', async () => {
    const [call] = await f.enqueue(await f.creditOfTakenBet());
    f.wallet.http.forgetTokens();
    f.sandbox.injectFaults([{ op: 'auth/token', kind: 'status', status: 503 }]);
    await f.worker.drain();
    const row = await f.call(call!.transactionId);
    assert.deepEqual([row.status, row.failures], ['pending', 1]);
    const [attempt] = await f.attempts(call!.transactionId);
    assert.deepEqual([attempt.http_status, attempt.outcome], [null, 'retry']);
    assert.match(attempt.error, /token request failed: HTTP 503/);
    assert.ok(!f.sandbox.requests().some((r) => (r.body as { transactionId?: string })?.transactionId === call!.transactionId));
    f.clock.advance(5 * MIN);
    await f.worker.drain();
    assert.equal((await f.call(call!.transactionId)).status, 'delivered');
  });

  test('a parked call blocks the later calls of its bet until it is retried', async () => {
    const { betId, userId } = await f.takenBet();
    const [first, second] = await f.enqueue(credit(betId, userId), credit(betId, userId));
    f.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 400 }]);
    await f.worker.drain();
    assert.equal((await f.call(first!.transactionId)).status, 'failed');
    assert.equal((await f.call(second!.transactionId)).status, 'pending');
    assert.equal((await f.attempts(second!.transactionId)).length, 0, 'the later call was not sent');
    const failed = await f.wallet.failed(f.tenantId);
    assert.ok(failed.calls.some((c) => c.call_id === first!.transactionId));
    const retried = await f.wallet.retry(first!.transactionId);
    assert.equal(retried.status, 'pending');
    await assert.rejects(f.wallet.retry(first!.transactionId), /is pending and has not failed: only a failed call, or one waiting after a failure, is retried/);
    await f.worker.drain();
    assert.equal((await f.call(first!.transactionId)).status, 'delivered');
    assert.equal((await f.call(second!.transactionId)).status, 'delivered');
    const listed = await f.wallet.callsOfBet(betId);
    assert.deepEqual(listed.calls.map((c) => [c.seq, c.status, c.attempt_log.length]), [[1, 'delivered', 2], [2, 'delivered', 1]]);
  });

  test('a call without a complete answer within the bound (no headers, or a stalled body) is cut and retried', async () => {
    const g = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 200, WAGERLINE_WALLET_LEASE_MS: 2000 } });
    try {
      const [call] = await g.enqueue(await g.creditOfTakenBet());
      g.sandbox.injectFaults([{ op: 'credit', kind: 'hang' }]);
      await g.worker.drain();
      const [attempt] = await g.attempts(call!.transactionId);
      assert.match(attempt.error, /timeout: no complete response within 200 ms/);
      assert.equal((await g.call(call!.transactionId)).status, 'pending');
      // Headers in time but the body never completes: the bound is on the last byte.
      g.sandbox.injectFaults([{ op: 'credit', kind: 'stall' }]);
      g.clock.advance(5 * MIN);
      await g.worker.drain();
      const second = (await g.attempts(call!.transactionId))[1];
      assert.deepEqual([second.http_status, second.outcome], [null, 'retry']);
      assert.match(second.error, /timeout: no complete response within 200 ms/);
      assert.equal((await g.call(call!.transactionId)).failures, 2);
    } finally {
      await g.close();
    }
  });
});

describe('several workers on one database', () => {
  test('never send one call twice, and deliver everything', async () => {
    const second = f.services().wallet;
    const other = second.createWorker({ listen: false });
    try {
      const calls = await f.enqueue(...await Promise.all(Array.from({ length: 300 }, (_, i) => f.creditOfTakenBet(`${i % 7}.25`))));
      await Promise.all([f.worker.drain(), other.drain(), f.worker.drain()]);
      const counts = new Map<string, number>();
      for (const r of f.sandbox.requests()) {
        const id = (r.body as { transactionId?: string })?.transactionId;
        if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      for (const c of calls) assert.equal(counts.get(c.transactionId), 1, c.transactionId);
    } finally {
      await other.stop();
      await second.close();
    }
  });
});
