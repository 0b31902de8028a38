// A placement's next call is sent by the placing process at commit (docs/wallet-delivery.md, "Sent by the
// placing process"): written `sending`, leased to the process's running worker, with no claim. A
// process that dies before sending it leaves it to its lease, and the next claim sends it once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Tx } from '../src/db/pool.ts';
import type { EnqueuedCall, WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import { credit, deliveredCalls, reserveAndConfirm, until, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const LEASE_MS = 3000;
let f: WalletFixture;
before(async () => {
  // No poll for ten minutes and no LISTEN: after the first round, only what this file tests sends anything.
  f = await walletFixture({ settings: { WAGERLINE_WALLET_LEASE_MS: LEASE_MS, WAGERLINE_WALLET_POLL_MS: 600_000 }, sandbox: { latencyMs: 0 } });
});
after(() => f.close());

/** A take step of its own around a take of one bet; `during` runs in its transaction after the call is queued. */
const takeAlone = (next: WalletCallInput, during: () => Promise<void> = async () => undefined) => ({
  context: undefined,
  group: {
    take: async (_tx: Tx, _contexts: unknown[], queueNext: (calls: WalletCallInput[]) => Promise<EnqueuedCall[]>) => {
      const [queued] = await queueNext([next]);
      await during();
      return [queued];
    },
  },
});

const bet = () => reserveAndConfirm(f.tenantId);

const callsOf = async (betId: string) => (await f.wallet.callsOfBet(betId)).calls;
const sentOf = (betId: string) => f.sandbox.requests().filter((r) => (r.body as { betId?: string }).betId === betId).map((r) => r.op);

test('with no worker running, the next call is written pending for the workers to claim', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, { take: takeAlone(b.confirm) });
  assert.equal(result.outcome, 'reserved');
  const confirm = (await callsOf(b.betId)).find((c) => c.op === 'confirm')!;
  assert.equal(confirm.status, 'pending');
  await f.worker.drain();
  assert.deepEqual(sentOf(b.betId), ['reserve', 'confirm']);
});

test('a running worker sends the next call at commit, leased to it, without a claim or a poll', async () => {
  await f.worker.start();
  try {
    const b = bet();
    const result = await f.wallet.reserve(b.input, { take: takeAlone(b.confirm) });
    assert.equal(result.outcome, 'reserved');
    // The poll is ten minutes away and nothing LISTENs: only the send at commit can deliver it.
    await until('confirm delivered', async () => (await callsOf(b.betId)).find((c) => c.op === 'confirm')?.status === 'delivered', 5000);
    assert.deepEqual(sentOf(b.betId), ['reserve', 'confirm']);
    const confirm = (await callsOf(b.betId)).find((c) => c.op === 'confirm')!;
    const attempts = await f.attempts(confirm.transaction_id);
    assert.deepEqual(attempts.map((a) => [a.outcome, a.worker]), [['success', f.worker.workerId]]);
    assert.deepEqual(await f.sandbox.balances(b.userId), { cash: '990.00', bonus: '0.00', reserved: '0.00' });
  } finally {
    await f.worker.stop();
  }
});

test('the call sent at commit is the one a worker would have claimed: the same body', async () => {
  /** The confirm's body as the wallet received it, with the bet's own ids taken out. */
  const confirmBody = (b: ReturnType<typeof bet>) => {
    const request = f.sandbox.requests().find((r) => r.op === 'confirm' && (r.body as { betId?: string }).betId === b.betId)!;
    const { transactionId: _, ...body } = request.body as Record<string, unknown>;
    return JSON.parse(JSON.stringify(body).replaceAll(b.betId, 'BET').replaceAll(b.userId, 'USER'));
  };
  const metadata = (b: ReturnType<typeof bet>) => ({ id: b.betId, legs: [{ eventId: 'E1', eventName: 'Race 1', selections: [{ id: '4', name: 'Four', price: 3.5 }] }] });
  const claimed = bet();
  assert.equal((await f.wallet.reserve(claimed.input, { take: takeAlone({ ...claimed.confirm, betMetadata: metadata(claimed) }) })).outcome, 'reserved');
  await f.worker.drain();
  await f.worker.start();
  try {
    const direct = bet();
    assert.equal((await f.wallet.reserve(direct.input, { take: takeAlone({ ...direct.confirm, betMetadata: metadata(direct) }) })).outcome, 'reserved');
    await until('confirm sent', () => sentOf(direct.betId).includes('confirm'), 5000);
    assert.deepEqual(confirmBody(direct), confirmBody(claimed));
    assert.equal(confirmBody(direct).betMetadata.legs[0].selections[0].price, 3.5);
  } finally {
    await f.worker.stop();
  }
});

// Two ways the send at commit does not happen: the worker stopped between the lease and the
// commit (as a process that died there), or the commit answered so late that too little of the
// lease is left to send safely (as a claim answered late).
const gone = {
  'stopped meanwhile': () => f.worker.stop(),
  'answered too late': async () => f.clock.advance(LEASE_MS - 500),
};
for (const [how, during] of Object.entries(gone)) {
  test(`a call written for this process but not sent (${how}) is left to its lease: the next claim sends it once`, async () => {
    await f.worker.start();
    const b = bet();
    const result = await f.wallet.reserve(b.input, { take: takeAlone(b.confirm, during) });
    await f.worker.stop();
    assert.equal(result.outcome, 'reserved');
    const left = (await callsOf(b.betId)).find((c) => c.op === 'confirm')!;
    assert.equal(left.status, 'sending');
    assert.deepEqual(sentOf(b.betId), ['reserve']);

    const other = f.loggedWorker().worker;
    await other.drain();
    assert.deepEqual(sentOf(b.betId), ['reserve'], 'not before its lease runs out');
    f.clock.advance(LEASE_MS + 1);
    await other.drain();
    assert.deepEqual(sentOf(b.betId), ['reserve', 'confirm']);
    const attempts = await f.attempts(left.transaction_id);
    assert.deepEqual(attempts.map((a) => a.outcome), ['interrupted', 'success']);
    assert.deepEqual(await f.sandbox.balances(b.userId), { cash: '990.00', bonus: '0.00', reserved: '0.00' });
  });
}

test('a call queued behind one in flight is claimed as soon as that one is recorded', async () => {
  const slow = await walletFixture({ settings: { WAGERLINE_WALLET_POLL_MS: 600_000 }, sandbox: { latencyMs: 300 } });
  try {
    const { betId, userId } = await slow.takenBet(); // its stake of 1.00 taken
    const [first] = await slow.enqueue(credit(betId, userId, '1.00'));
    await slow.worker.start(); // its first round claims the first credit
    const [second] = await slow.enqueue(credit(betId, userId, '2.00')); // no LISTEN: nothing wakes for it
    await until('both credits delivered', async () => (await slow.call(second!.transactionId)).status === 'delivered', 5000);
    assert.equal((await slow.call(first!.transactionId)).status, 'delivered');
    assert.deepEqual(await slow.sandbox.balances(userId), { cash: '1002.00', bonus: '0.00', reserved: '0.00' });
  } finally {
    await slow.close();
  }
});

test('the worker goes on claiming while calls of other senders hold some of the wallet\'s slots', async () => {
  const busy = await walletFixture({ concurrency: 5, settings: { WAGERLINE_WALLET_POLL_MS: 600_000 }, sandbox: { latencyMs: 20 } });
  try {
    // A reserve in flight elsewhere (a placement of another process): the claim counts it, this worker does not.
    await busy.db.pool.query(
      `INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag, status,
                                 next_attempt_at, created_at, lease_until, lease_owner)
       VALUES ($1, $2, $3, 1, $4, 'reserve', 1, 'dollars', false, 'sending', now(), now(), now() + interval '1 hour', 'reserve/elsewhere')`,
      [busy.tenantId, randomUUID(), randomUUID(), randomUUID()]);
    const userId = randomUUID();
    // 20 bets taken for 1.00 each, then credited 2.00 each: 1000 − 20 + 40.
    const credits = await busy.enqueue(...await Promise.all(Array.from({ length: 20 }, () => busy.creditOfTakenBet('2.00', userId))));
    await busy.worker.start(); // its first round claims 4: the fifth slot is the reserve's
    await until('all 20 credits delivered', async () => (await deliveredCalls(busy.db, 'credit')) === credits.length, 8000);
    assert.deepEqual(await busy.sandbox.balances(userId), { cash: '1020.00', bonus: '0.00', reserved: '0.00' });
  } finally {
    await busy.close();
  }
});

test('calls sent at commit hold their slots from the lease: never more in flight than the wallet\'s concurrency', async () => {
  const tight = await walletFixture({ concurrency: 2, settings: { WAGERLINE_WALLET_POLL_MS: 200 }, sandbox: { latencyMs: 300 } });
  try {
    await tight.worker.start();
    const bets = Array.from({ length: 5 }, () => reserveAndConfirm(tight.tenantId));
    // Every take queues its confirm, then waits in its transaction until all five have: five leases asked at once.
    let queued = 0;
    let allQueued!: () => void;
    const barrier = new Promise<void>((resolve) => { allQueued = resolve; });
    const results = await Promise.all(bets.map((b) => tight.wallet.reserve(b.input, { take: takeAlone(b.confirm, async () => {
      if (++queued === bets.length) allQueued();
      await barrier;
    }) })));
    assert.deepEqual(results.map((r) => r.outcome), Array(5).fill('reserved'));
    const { rows } = await tight.db.pool.query("SELECT status, count(*)::int AS n FROM wallet_calls WHERE op = 'confirm' GROUP BY status ORDER BY status");
    assert.deepEqual(rows, [{ status: 'pending', n: 3 }, { status: 'sending', n: 2 }], 'two leased to this worker, three left to claims');
    assert.ok(tight.worker.inFlight() <= 2, `in flight: ${tight.worker.inFlight()}`);
    await until('all five confirmed', async () => (await deliveredCalls(tight.db, 'confirm')) === 5, 8000);
  } finally {
    await tight.close();
  }
});
