// What the worker heard is what it records. A reserve success heard by the worker was dropped when
// the write of its round failed (left to the lease: asked again, and a wallet refusing the replay
// with a plain 4xx had its refund skipped while it held the stake), and a success written after
// the lease ran out was lost on the rescue's requeued reserve. A reserve whose sealed token the
// process could not open (WAGERLINE_SECRET_KEY changed) failed before any record, after every
// lease, for ever: never parked, its refund never sent, out of the operator's reach.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { Pool } from '../src/db/pool.ts';
import { rescueOrphanedReserves } from '../src/modules/wallet/delivery/reserve-release.ts';
import { createWalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { testServices } from './helpers/app.ts';
import { CLIENT, reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const LEASE_MS = 3000;
const OPENING = { cash: '1000.00', bonus: '0.00', reserved: '0.00' };
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 250, WAGERLINE_WALLET_LEASE_MS: LEASE_MS, WAGERLINE_WALLET_RESERVE_RETRIES: 2 } });
});
after(() => f.close());

/** A reserve the wallet applied whose answers were all lost: `unknown`, a conditional refund queued behind it. */
async function unansweredReserve() {
  const betId = randomUUID();
  const userId = randomUUID();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'apply-then-fail', times: 3 }]);
  const result = await f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '10', bonusFlag: false, token: 'user-token', metadata: reserveMetadata(userId) });
  assert.equal(result.outcome, 'unknown');
  assert.equal((await f.sandbox.balances(userId)).reserved, '10.00');
  return { betId, userId };
}

/** The fixture's pool, whose first write of a round's results fails as a dropped connection would (after `beforeFailing`). */
function failingFirstRecord(pool: Pool, options: { beforeFailing?: () => Promise<unknown> } = {}): Pool {
  let failed = false;
  const run = (q: unknown, values?: unknown) => (pool.query as (q: unknown, v?: unknown) => Promise<unknown>)(q, values);
  return new Proxy(pool, {
    get(target, prop) {
      if (prop !== 'query') {
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (q: unknown, values?: unknown) => {
        if (failed || (q as { name?: string } | null)?.name !== 'wallet_complete') return run(q, values);
        failed = true;
        await options.beforeFailing?.();
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
      };
    },
  });
}

const calls = async (betId: string) => (await f.wallet.callsOfBet(betId)).calls.map((c) => `${c.op} ${c.status}`);
const refundsApplied = (userId: string) => f.sandbox.requests().filter((r) => r.op === 'refundBet' && (r.body as { userId?: string }).userId === userId && r.status === 200).length;

test('a success heard but not written (the write failed once) is written again; the refund goes out, the wallet is not asked again', async () => {
  const { betId, userId } = await unansweredReserve();
  const logs: string[] = [];
  const worker = createWalletWorker({ db: failingFirstRecord(f.db.pool), box: f.box, http: f.wallet.http, clock: f.clock, leaseMs: LEASE_MS,
    pollMs: 1000, log: (message) => logs.push(message) });
  const asked = f.sandbox.requests().filter((r) => r.op === 'reserve').length;
  await worker.drain();
  assert.ok(logs.includes('recording wallet results failed'), JSON.stringify(logs));
  assert.equal(f.sandbox.requests().filter((r) => r.op === 'reserve').length, asked + 1, 'asked once; the success is kept');
  assert.deepEqual(await calls(betId), ['reserve delivered', 'refundBet delivered']);
  assert.deepEqual(await f.sandbox.balances(userId), OPENING);
});

test('a success written after the rescue requeued the reserve is recorded on it: its refund goes out once', async () => {
  const { betId, userId } = await unansweredReserve();
  // While the worker's write fails, its lease runs out and the rescue requeues the reserve (with a refund behind it).
  const rescue = async () => {
    f.clock.advance(LEASE_MS + 1);
    assert.equal(await rescueOrphanedReserves({ db: f.db.pool, box: f.box, clock: f.clock, leaseMs: LEASE_MS }), 1);
  };
  const worker = createWalletWorker({ db: failingFirstRecord(f.db.pool, { beforeFailing: rescue }), box: f.box, http: f.wallet.http, clock: f.clock, leaseMs: LEASE_MS, pollMs: 1000 });
  const asks = () => f.sandbox.requests().filter((r) => r.op === 'reserve').length;
  const before = asks();
  await worker.drain();
  await f.worker.drain();
  assert.equal(asks(), before + 1, 'the requeued reserve is not asked again: a wallet may refuse the replay');
  assert.deepEqual(await calls(betId), ['reserve delivered', 'refundBet delivered']);
  assert.deepEqual(await f.sandbox.balances(userId), OPENING);
  assert.equal(refundsApplied(userId), 1);
  const { rows } = await f.db.pool.query<{ attempts: number; logged: number }>(
    `SELECT c.attempts, (SELECT count(*)::int FROM wallet_call_attempts a WHERE a.tenant_id = c.tenant_id AND a.transaction_id = c.transaction_id) AS logged
       FROM wallet_calls c WHERE c.bet_id = $1 AND c.op = 'reserve'`, [betId]);
  assert.equal(rows[0]!.attempts, rows[0]!.logged, 'each ask counted once');
});

test('a reserve whose token this key cannot open is parked with its refund kept; resolve --reserved returns the stake and drops the token', async () => {
  const { betId, userId } = await unansweredReserve();
  // The operator changes WAGERLINE_SECRET_KEY and runs set-wallet again.
  const rotated = testServices(f.db, createSecretBox(randomBytes(32)), { settings: f.settings, clock: f.clock });
  await rotated.wallet.setWallet({ tenantId: f.tenantId, url: f.sandbox.url, auth: 'client_credentials', ...CLIENT });
  const worker = rotated.wallet.createWorker({ listen: false });
  try {
    const asked = f.sandbox.requests().filter((r) => r.op === 'reserve').length;
    await worker.drain();
    assert.equal(f.sandbox.requests().filter((r) => r.op === 'reserve').length, asked, 'nothing sent');
    const [reserve] = (await rotated.wallet.callsOfBet(betId)).calls;
    assert.deepEqual([reserve!.status, await calls(betId)], ['failed', ['reserve failed', 'refundBet pending']]);
    assert.match(reserve!.last_error!, /cannot be opened with this WAGERLINE_SECRET_KEY.*may hold the stake/);
    assert.ok((await rotated.wallet.failed()).calls.some((c) => c.call_id === reserve!.call_id), 'listed by wallet failed');

    await rotated.wallet.resolve(reserve!.call_id, 'checked the wallet: it holds the stake', undefined, { reserved: true });
    await worker.drain();
    assert.deepEqual(await calls(betId), ['reserve resolved', 'refundBet delivered']);
    assert.deepEqual(await f.sandbox.balances(userId), OPENING);
    const { rows } = await f.db.pool.query('SELECT secret_enc IS NULL AS dropped FROM wallet_calls WHERE bet_id = $1 AND op = $2', [betId, 'reserve']);
    assert.deepEqual(rows, [{ dropped: true }], 'a resolved call keeps no sealed token');
  } finally {
    await worker.stop();
    await rotated.close();
    await f.wallet.setWallet({ tenantId: f.tenantId, url: f.sandbox.url, auth: 'client_credentials', ...CLIENT }); // the fixture's key again
  }
});

