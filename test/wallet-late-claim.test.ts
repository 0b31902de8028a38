// A claim or a reserve whose database answer comes back so late that its lease could run out
// before the first renewal (a stalled database, a pool wait, a paused process) is not sent: another
// sender may claim the call as soon as the lease ends, and a call is never in flight from two.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Pool } from '../src/db/pool.ts';
import { createWalletHttp } from '../src/modules/wallet/delivery/http-client.ts';
import { holdLease } from '../src/modules/wallet/delivery/reserve-lease.ts';
import { createWalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const LEASE_MS = 5000;
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_LEASE_MS: LEASE_MS } });
});
after(() => f.close());

/** The pool, but the claim statement's answer arrives after the test clock moved on by `stallMs`. */
function stalledClaims(pool: Pool, stallMs: number): Pool {
  return new Proxy(pool, {
    get(target, property) {
      if (property !== 'query') return Reflect.get(target, property, target);
      return async (query: unknown, values?: unknown[]) => {
        const answer = await target.query(query as string, values);
        if ((query as { name?: string }).name === 'wallet_claim') f.clock.advance(stallMs);
        return answer;
      };
    },
  }) as Pool;
}

test('a claim answered after most of its lease is left unsent; the next sender delivers the call once', async () => {
  const userId = randomUUID();
  const [call] = await f.enqueue(await f.creditOfTakenBet('1.00', userId));
  const logged: string[] = [];
  const late = createWalletWorker({ db: stalledClaims(f.db.pool, LEASE_MS), box: f.box, http: createWalletHttp({ timeoutMs: 2000 }),
    clock: f.clock, leaseMs: LEASE_MS, pollMs: 60_000, log: (message) => logged.push(message) });
  await late.drain();
  const sent = () => f.sandbox.requests().filter((r) => (r.body as { transactionId?: string }).transactionId === call!.transactionId).length;
  assert.equal(sent(), 0, 'the late claim sent nothing');
  assert.deepEqual(logged, ['wallet claim answered too late: its calls are left to their leases']);
  f.clock.advance(1); // the lease has ended: the call is anyone's
  await f.worker.drain();
  assert.equal(sent(), 1);
  assert.equal((await f.call(call!.transactionId)).status, 'delivered');
  await late.stop();
});

test('a reserve whose lease is about to end before it is sent is stopped before sending', async () => {
  const now = f.clock();
  const key = { tenant_id: f.tenantId, transaction_id: randomUUID(), owner: 'test' };
  const late = holdLease(f.db.pool, key, new Date(now.getTime() + LEASE_MS / 3), LEASE_MS, f.clock);
  const inTime = holdLease(f.db.pool, key, new Date(now.getTime() + LEASE_MS), LEASE_MS, f.clock);
  try {
    assert.equal(late.signal.aborted, true);
    assert.match(String(late.signal.reason), /before the reserve was sent/);
    assert.equal(inTime.signal.aborted, false);
  } finally {
    late.release();
    inTime.release();
  }
});
