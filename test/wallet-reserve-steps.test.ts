// The reserve's steps (docs/wallet-delivery.md, Reserve): placement stores its bet in the transaction that
// writes the reserve's row (`open`), and takes it in the one that records the reserve's success
// (`take`), queueing the bet's next call there. Whatever step fails, no user money stays held.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { PoolClient } from 'pg';
import { rescueOrphanedReserves } from '../src/modules/wallet/delivery/reserve-release.ts';
import type { Tx } from '../src/db/pool.ts';
import type { EnqueuedCall, WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import type { OpeningSql } from '../src/modules/wallet/outbox/placement.queries.ts';
import { TakeFailed } from '../src/modules/wallet/wallet.service.ts';
import { reserveAndConfirm, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const LEASE_MS = 3000;
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_LEASE_MS: LEASE_MS } });
});
after(() => f.close());

/** A take step of its own (a group nobody else joins) around a take of one bet. */
const alone = <T>(take: (tx: Tx, queueNext: (call: WalletCallInput) => Promise<EnqueuedCall>) => Promise<T>) => ({
  context: undefined,
  group: { take: async (tx: Tx, _contexts: unknown[], queueNext: (calls: WalletCallInput[]) => Promise<EnqueuedCall[]>) =>
    [await take(tx, async (call) => (await queueNext([call]))[0]!)] },
});

/** An opening of its own (a group nobody else joins): the same SQL whatever the bets. */
const openAlone = (sql: OpeningSql) => ({ context: undefined, group: { sql: () => sql } });

const opening = { cash: '1000.00', bonus: '0.00', reserved: '0.00' };

const bet = () => reserveAndConfirm(f.tenantId);

const statuses = async (betId: string) => (await f.wallet.callsOfBet(betId)).calls.map((c) => [c.op, c.status]);
const sentOf = (betId: string) => f.sandbox.requests().filter((r) => (r.body as { betId?: string }).betId === betId).map((r) => r.op);

test('take queues confirm in the transaction that records the reserve: the guard is written released', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, {
    take: alone(async (_tx, queueNext) => (await queueNext(b.confirm)).seq),
  });
  assert.equal(result.outcome, 'reserved');
  assert.equal(result.outcome === 'reserved' && result.taken, 3, 'reserve, its guard, then confirm');
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'skipped'], ['confirm', 'pending']]);
  await f.worker.drain();
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'skipped'], ['confirm', 'delivered']]);
  assert.deepEqual(sentOf(b.betId), ['reserve', 'confirm']);
  assert.deepEqual(await f.sandbox.balances(b.userId), { cash: '990.00', bonus: '0.00', reserved: '0.00' });
});

test('open is SQL run first in the statement of the reserve\'s row, its parameters before the reserve\'s', async () => {
  const b = bet();
  const other = randomUUID();
  // A write of the caller's own (here: a row of another bet), with parameters $1 and $2 of its own.
  const write = 'opened AS (INSERT INTO wallet_bet_sequences (tenant_id, bet_id, last_seq) VALUES ($1, $2, 7) RETURNING $3::uuid AS bet_id)';
  const result = await f.wallet.reserve(b.input, { open: openAlone({ name: 'test_write', with: write, values: [f.tenantId, other, b.betId] }) });
  assert.equal(result.outcome, 'reserved');
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'pending']]);
  const { rows } = await f.db.pool.query('SELECT bet_id, last_seq FROM wallet_bet_sequences WHERE bet_id = ANY ($1::uuid[]) ORDER BY last_seq', [[b.betId, other]]);
  assert.deepEqual(rows, [{ bet_id: b.betId, last_seq: 2 }, { bet_id: other, last_seq: 7 }]);
});

test('open that writes nothing: neither is the reserve written nor sent', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, { open: openAlone({ name: 'test_nothing', with: 'opened AS (SELECT $2::uuid AS bet_id WHERE $1::bool)', values: [false, b.betId] }) });
  assert.deepEqual(result, { outcome: 'not_opened' });
  assert.deepEqual(await statuses(b.betId), []);
  assert.deepEqual(sentOf(b.betId), []);
});

test('open that fails: nothing is written or sent', async () => {
  const b = bet();
  await assert.rejects(f.wallet.reserve(b.input, { open: openAlone({ name: 'test_fails', with: 'opened AS (SELECT $2::uuid AS bet_id WHERE 1 / $1::int > 0)', values: [0, b.betId] }) }), /division by zero/);
  assert.deepEqual(await statuses(b.betId), []);
  assert.deepEqual(sentOf(b.betId), []);
});

test('take throws after the wallet reserved: the record rolls back, the success is recorded anew and the stake refunded without asking again', async () => {
  const b = bet();
  const failed = await f.wallet.reserve(b.input, {
    take: alone(async (_tx, queueNext) => {
      await queueNext(b.confirm);
      throw new Error('the bet could not be taken');
    }),
  }).catch((error: unknown) => error);
  assert.ok(failed instanceof TakeFailed, String(failed));
  assert.equal(failed.refundQueued, true);
  assert.match(String((failed.cause as Error).message), /could not be taken/);
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'pending']], 'no confirm: the taking rolled back');
  const [refund] = (await f.db.pool.query('SELECT placement_guard, only_if_reserved, amount FROM wallet_calls WHERE bet_id = $1 AND seq = 2', [b.betId])).rows;
  assert.deepEqual(refund, { placement_guard: false, only_if_reserved: true, amount: '10.00' }, 'due now, not a guard');
  await f.worker.drain();
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(sentOf(b.betId), ['reserve', 'refundBet'], 'the reserve was asked once');
  assert.deepEqual(await f.sandbox.balances(b.userId), opening);
});

test('a take that queues nothing leaves the placement guard pending, as a plain reserve does', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, { take: alone(async () => 'nothing queued') });
  assert.equal(result.outcome === 'reserved' && result.taken, 'nothing queued');
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'pending']]);
  const [guard] = (await f.db.pool.query('SELECT placement_guard, next_attempt_at > now() AS later FROM wallet_calls WHERE bet_id = $1 AND seq = 2', [b.betId])).rows;
  assert.deepEqual(guard, { placement_guard: true, later: true });
});

test('take may queue one call only: a second is refused, the whole record rolls back and the stake is refunded', async () => {
  const b = bet();
  const failed = await f.wallet.reserve(b.input, {
    take: alone(async (_tx, queueNext) => {
      await queueNext(b.confirm);
      await queueNext(b.confirm);
    }),
  }).catch((error: unknown) => error);
  assert.ok(failed instanceof TakeFailed && /only one call is queued/.test(String((failed.cause as Error).message)), String(failed));
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'pending']]);
});

test('the lease lost while taking: what take wrote rolls back, the answer is unknown, the attempts are kept', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, {
    take: alone(async (_tx, queueNext) => {
      // The rescue took the call over meanwhile (as after a lease that ran out).
      await f.db.pool.query("UPDATE wallet_calls SET lease_owner = 'rescue' WHERE bet_id = $1", [b.betId]);
      await queueNext(b.confirm);
    }),
  });
  assert.equal(result.outcome, 'unknown');
  assert.deepEqual(await statuses(b.betId), [['reserve', 'sending']], 'no confirm, no guard: the rescue owns the reserve');
  assert.equal((await f.attempts(result.transactionId)).length, 1);
});

test('the rescue took the reserve over while taking: nothing is taken, the stake comes back once, every attempt is logged', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, {
    take: alone(async (_tx, queueNext) => {
      // The lease runs out (as if this process had stalled) and the worker's real rescue runs:
      // it asks the wallet again and refunds, before this take gets to record anything.
      f.clock.advance(LEASE_MS + 1);
      await f.worker.drain();
      await queueNext(b.confirm);
    }),
  });
  assert.equal(result.outcome, 'unknown');
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(sentOf(b.betId), ['reserve', 'reserve', 'refundBet']);
  assert.deepEqual(await f.sandbox.balances(b.userId), opening);
  // The rescue's note, its own ask, then this sender's ask recorded late: numbered after, not dropped.
  const log = (await f.attempts(result.transactionId)).map((a) => [a.attempt, a.outcome]);
  assert.deepEqual(log, [[1, 'interrupted'], [2, 'success'], [3, 'success']]);
});

test('the take commits but its answer is lost: TakeFailed without a refund, the bet stays taken, its attempt logged once', async () => {
  const b = bet();
  // Fault injection on our side of the connection: the next transaction's COMMIT runs, and then
  // its answer is "lost" (the error a dropped connection gives).
  const pool = f.db.pool;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  let armed = false;
  (pool as unknown as { connect: unknown }).connect = async (...args: unknown[]) => {
    if (args.length) return connect(...args); // pool.query's own checkout, with a callback
    const client = await (connect() as Promise<PoolClient>);
    const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
    (client as unknown as { query: unknown }).query = async (...a: unknown[]) => {
      const out = await query(...a);
      if (armed && a[0] === 'COMMIT') {
        armed = false;
        throw new Error('Connection terminated unexpectedly');
      }
      return out;
    };
    return client;
  };
  let failed: unknown;
  try {
    failed = await f.wallet.reserve(b.input, {
      take: alone(async (_tx, queueNext) => {
        await queueNext(b.confirm);
        armed = true;
      }),
    }).catch((error: unknown) => error);
  } finally {
    (pool as unknown as { connect: unknown }).connect = connect;
  }
  assert.ok(failed instanceof TakeFailed && failed.refundQueued === false, String(failed));
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'skipped'], ['confirm', 'pending']], 'taken: no refund queued');
  const [reserve] = (await f.wallet.callsOfBet(b.betId)).calls;
  assert.equal((await f.attempts(reserve!.transaction_id)).length, 1);
});

test('the rescue requeued the reserve but no worker asked yet: the success heard late is recorded, the refund goes without a second ask', async () => {
  const b = bet();
  const result = await f.wallet.reserve(b.input, {
    take: alone(async (_tx, queueNext) => {
      // The lease runs out and the rescue requeues the reserve (with its refund behind it); no worker runs yet.
      f.clock.advance(LEASE_MS + 1);
      await rescueOrphanedReserves({ db: f.db.pool, box: f.box, clock: f.clock, leaseMs: LEASE_MS });
      await queueNext(b.confirm);
    }),
  });
  assert.equal(result.outcome, 'unknown');
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'pending']]);
  await f.worker.drain();
  assert.deepEqual(sentOf(b.betId), ['reserve', 'refundBet'], 'the wallet was asked once');
  assert.deepEqual(await f.sandbox.balances(b.userId), opening);
});

test('take throws after the rescue requeued the reserve: the success heard is recorded on it, the refund goes without a second ask', async () => {
  const b = bet();
  const failed = await f.wallet.reserve(b.input, {
    take: alone(async () => {
      f.clock.advance(LEASE_MS + 1);
      await rescueOrphanedReserves({ db: f.db.pool, box: f.box, clock: f.clock, leaseMs: LEASE_MS });
      throw new Error('the bet could not be taken');
    }),
  }).catch((error: unknown) => error);
  assert.ok(failed instanceof TakeFailed && failed.refundQueued === false, String(failed));
  assert.deepEqual(await statuses(b.betId), [['reserve', 'delivered'], ['refundBet', 'pending']]);
  await f.worker.drain();
  assert.deepEqual(sentOf(b.betId), ['reserve', 'refundBet'], 'the wallet was asked once');
  assert.deepEqual(await f.sandbox.balances(b.userId), opening);
});
