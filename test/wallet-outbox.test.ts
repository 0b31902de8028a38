// The outbox as the rest of the code sees it: one enqueue function that writes in the caller's
// transaction (nothing is sent before commit, nothing after rollback), the checks it makes
// (refundBet only after a successful reserve, betMetadata of spec 2.5), the concurrency limit per
// wallet across workers, integer-cent amounts, and the metrics.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Counter, Gauge } from 'prom-client';
import { credit, reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  f = await walletFixture();
});
after(() => f.close());

const sentIds = () => new Set(f.sandbox.requests().map((r) => (r.body as { transactionId?: string } | undefined)?.transactionId));
const rowCount = async (betId: string) =>
  (await f.db.pool.query('SELECT count(*)::int AS n FROM wallet_calls WHERE bet_id = $1', [betId])).rows[0].n as number;

test('a call exists only once the caller\'s transaction commits, and never after a rollback', async () => {
  const tx = await f.db.pool.connect();
  try {
    await tx.query('BEGIN');
    const open = await f.wallet.enqueue(tx, { tenantId: f.tenantId, ...(await f.creditOfTakenBet()) });
    await f.worker.drain();
    assert.ok(!sentIds().has(open.transactionId), 'not sent while the transaction is open');
    await tx.query('COMMIT');
    const rolledBack = credit();
    await tx.query('BEGIN');
    await f.wallet.enqueue(tx, { tenantId: f.tenantId, ...rolledBack });
    await tx.query('ROLLBACK');
    await f.worker.drain();
    assert.equal((await f.call(open.transactionId)).status, 'delivered');
    assert.equal(await rowCount(rolledBack.betId), 0);
    assert.ok(!f.sandbox.requests().some((r) => (r.body as { betId?: string })?.betId === rolledBack.betId));
  } finally {
    tx.release();
  }
});

test('only the outbox module writes wallet_calls (one enqueue function for the rest of the code)', () => {
  const src = path.resolve(import.meta.dirname, '../src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => ({ f: f.split(path.sep).join('/'), text: readFileSync(path.join(src, f), 'utf8') }));
  const where = (pattern: RegExp) => files.filter(({ text }) => pattern.test(text)).map(({ f }) => f).sort();
  assert.deepEqual(where(/INSERT INTO wallet_calls\b/),
    ['modules/wallet/outbox/enqueue-batch.queries.ts', 'modules/wallet/outbox/outbox.queries.ts', 'modules/wallet/outbox/placement.queries.ts']);
  assert.deepEqual(where(/\binsertCall\(/), ['modules/wallet/outbox/enqueue.ts', 'modules/wallet/outbox/outbox.queries.ts']);
  assert.deepEqual(where(/\binsertBatch\(/), ['modules/wallet/outbox/enqueue-batch.queries.ts', 'modules/wallet/outbox/enqueue-batch.ts']);
  assert.deepEqual(where(/\bwriteOutboxRow\(/), ['modules/wallet/delivery/reserve-release.ts', 'modules/wallet/outbox/enqueue.ts']);
});

test('refundBet is refused unless the bet\'s reserve was delivered (spec 3), writing nothing', async () => {
  const refund = (betId: string, userId: string) =>
    f.enqueue({ betId, userId, op: 'refundBet', amount: '1.00', bonusFlag: false });
  const never = { betId: randomUUID(), userId: randomUUID() };
  await assert.rejects(refund(never.betId, never.userId), { code: 'wallet_no_reservation', message: /the bet has no reserve/ });
  const poor = { betId: randomUUID(), userId: randomUUID() };
  const rejected = await f.wallet.reserve({ tenantId: f.tenantId, ...poor, amount: '5000', bonusFlag: false, token: 't', metadata: reserveMetadata(poor.userId) });
  assert.equal(rejected.outcome, 'rejected');
  await assert.rejects(refund(poor.betId, poor.userId), { code: 'wallet_no_reservation', message: /its reserve is refused/ });
  assert.equal(await rowCount(poor.betId), 1, 'only the refused reserve');
  const ok = { betId: randomUUID(), userId: randomUUID() };
  await f.wallet.reserve({ tenantId: f.tenantId, ...ok, amount: '3', bonusFlag: false, token: 't', metadata: reserveMetadata(ok.userId) });
  const [call] = await refund(ok.betId, ok.userId);
  await f.worker.drain();
  assert.equal((await f.call(call!.transactionId)).status, 'delivered');
});

test('confirm\'s betMetadata is checked against spec 2.5 at enqueue', async () => {
  const betId = randomUUID();
  const confirm = (betMetadata: unknown) =>
    f.enqueue({ betId, userId: randomUUID(), op: 'confirm', amount: '1', bonusFlag: false, betMetadata: betMetadata as never });
  await assert.rejects(confirm({ id: randomUUID(), legs: [] }), /betMetadata.id must be the bet's id/);
  await assert.rejects(confirm({ id: betId }), /betMetadata.legs \(an array\) is required/);
  await assert.rejects(confirm({ id: betId, legs: [{ betTypeId: 1.5 }] }), /betMetadata.legs\[0\].betTypeId must be an integer/);
  await assert.rejects(confirm({ id: betId, legs: [{ selection: [{ selectionId: [7] }] }] }), /selection\[0\].selectionId must be an array of strings/);
  await assert.rejects(confirm({ id: betId, createdAt: 20260101, legs: [] }), /betMetadata.createdAt must be a string/);
  assert.equal(await rowCount(betId), 0);
  const [ok] = await confirm({ id: betId.toUpperCase(), legs: [{ marketId: null, selection: [] }], extraField: 'allowed' });
  assert.ok(ok);
});

test('never more calls in flight to one wallet than its concurrency, across workers', async () => {
  const g = await walletFixture({ concurrency: 3, sandbox: { latencyMs: 40 } });
  const second = g.services().wallet;
  const other = second.createWorker({ listen: false });
  try {
    const calls = await g.enqueue(...await Promise.all(Array.from({ length: 24 }, () => g.creditOfTakenBet())));
    await Promise.all([g.worker.drain(), other.drain()]);
    assert.equal(g.sandbox.load().peak, 3);
    const { rows } = await g.db.pool.query("SELECT count(*)::int AS n FROM wallet_calls WHERE status = 'delivered'");
    assert.equal(rows[0].n, calls.length);
  } finally {
    await other.stop();
    await second.close();
    await g.close();
  }
});

test('a tenant configured for integer cents gets amounts in cents on the wire', async () => {
  const g = await walletFixture({ amountUnit: 'cents' });
  try {
    const userId = randomUUID();
    const betId = randomUUID();
    const reserved = await g.wallet.reserve({ tenantId: g.tenantId, betId, userId, amount: '10.05', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
    assert.equal(reserved.outcome, 'reserved');
    await g.enqueue(
      { betId, userId, op: 'confirm', amount: '10.05', bonusFlag: false, betMetadata: { id: betId, legs: [] } },
      { betId, userId, op: 'credit', amount: '12.34', bonusFlag: false, transactionType: 'cashout' },
    );
    await g.worker.drain();
    const amounts = g.sandbox.requests().map((r) => [r.op, (r.body as { amount?: number }).amount]).filter(([op]) => op !== 'auth/token');
    assert.deepEqual(amounts, [['reserve', 1005], ['confirm', 1005], ['credit', 1234]]);
    assert.deepEqual(await g.sandbox.balances(userId), { cash: '1002.29', bonus: '0.00', reserved: '0.00' });
  } finally {
    await g.close();
  }
});

test('metrics: calls by tenant, operation and outcome; outbox depth, parked calls, age of the oldest', async () => {
  const g = await walletFixture();
  try {
    const gauge = async (name: string) => (await (g.registry.getSingleMetric(name) as Gauge).get()).values[0]!.value;
    const [first, second] = await g.enqueue(await g.creditOfTakenBet(), await g.creditOfTakenBet());
    g.clock.advance(90_000);
    assert.deepEqual([await gauge('wallet_outbox_depth'), await gauge('wallet_outbox_oldest_pending_seconds')], [2, 90]);
    g.sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 422 }]);
    await g.worker.drain();
    const statuses = [(await g.call(first!.transactionId)).status, (await g.call(second!.transactionId)).status].sort();
    assert.deepEqual(statuses, ['delivered', 'failed']);
    assert.deepEqual([await gauge('wallet_outbox_depth'), await gauge('wallet_outbox_failed'), await gauge('wallet_outbox_oldest_pending_seconds')], [0, 1, 0]);
    const userId = randomUUID();
    await g.wallet.reserve({ tenantId: g.tenantId, betId: randomUUID(), userId, amount: '1', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
    const counted = (await (g.registry.getSingleMetric('wallet_calls_total') as Counter).get()).values
      .map((v) => [v.labels.tenant, v.labels.operation, v.labels.outcome, v.value]).sort();
    assert.deepEqual(counted, [[g.tenantId, 'credit', 'delivered', 1], [g.tenantId, 'credit', 'failed', 1], [g.tenantId, 'reserve', 'reserved', 1]]);
    assert.match(await g.registry.metrics(), /^wallet_outbox_failed 1$/m);
  } finally {
    await g.close();
  }
});

test('signed calls: a wallet holding the same signing secret accepts them; another secret gets 401 and the schedule', async () => {
  const secret = 'shared-signing-secret-0123';
  const g = await walletFixture({ signingSecret: secret, sandbox: { signingSecret: secret } });
  try {
    const userId = randomUUID();
    const betId = randomUUID();
    const reserved = await g.wallet.reserve({ tenantId: g.tenantId, betId, userId, amount: '2', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
    assert.equal(reserved.outcome, 'reserved');
    const [, signed] = await g.enqueue({ betId, userId, op: 'confirm', amount: '2', bonusFlag: false, betMetadata: { id: betId, legs: [] } }, credit(betId, userId));
    await g.worker.drain();
    assert.equal((await g.call(signed!.transactionId)).status, 'delivered');
    await g.wallet.setWallet({ tenantId: g.tenantId, url: g.sandbox.url, auth: 'client_credentials', clientId: 'wagerline-test', clientSecret: 'sandbox-secret-123', signingSecret: 'another-secret-45678901' });
    const [wrong] = await g.enqueue(credit(betId, userId));
    await g.worker.drain();
    const row = await g.call(wrong!.transactionId);
    assert.deepEqual([row.status, row.last_http_status, row.last_code], ['pending', 401, 'INVALID_SIGNATURE']);
    assert.equal((await g.sandbox.effects()).get(wrong!.transactionId), undefined);
  } finally {
    await g.close();
  }
});
