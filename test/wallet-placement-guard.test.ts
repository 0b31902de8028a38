// The placement guard (docs/wallet-delivery.md, Reserve): after a successful reserve, a refundBet waits
// one placement window. Placement's next call for the bet releases it; a placement that never
// comes (crash, rollback) leaves no user money held, because the guard then goes out.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction } from '../src/db/pool.ts';
import { AppError } from '../src/errors.ts';
import { reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const WINDOW_MS = 30_000;
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: WINDOW_MS } });
});
after(() => f.close());

const opening = { cash: '1000.00', bonus: '0.00', reserved: '0.00' };

async function reserved() {
  const betId = randomUUID();
  const userId = randomUUID();
  const result = await f.wallet.reserve({ tenantId: f.tenantId, betId, userId, amount: '10', bonusFlag: false, token: 't', metadata: reserveMetadata(userId) });
  assert.equal(result.outcome, 'reserved');
  return { betId, userId };
}

const confirm = (bet: { betId: string; userId: string }) =>
  ({ ...bet, op: 'confirm' as const, amount: '10', bonusFlag: false, betMetadata: { id: bet.betId, legs: [] } });

const statuses = async (betId: string) => (await f.wallet.callsOfBet(betId)).calls.map((c) => [c.op, c.status]);

test('placement never queues the next call: after the window the guard refunds, and the funds are free', async () => {
  const bet = await reserved();
  assert.deepEqual(await statuses(bet.betId), [['reserve', 'delivered'], ['refundBet', 'pending']]);
  await f.worker.drain();
  assert.deepEqual(await f.sandbox.balances(bet.userId), { cash: '990.00', bonus: '0.00', reserved: '10.00' }, 'held during the window');
  f.clock.advance(WINDOW_MS);
  await f.worker.drain();
  assert.deepEqual(await statuses(bet.betId), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(bet.userId), opening);
});

test('placement queues confirm in time: the guard is released and never sent', async () => {
  const bet = await reserved();
  await f.enqueue(confirm(bet));
  f.clock.advance(2 * WINDOW_MS);
  await f.worker.drain();
  assert.deepEqual(await statuses(bet.betId), [['reserve', 'delivered'], ['refundBet', 'skipped'], ['confirm', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(bet.userId), { cash: '990.00', bonus: '0.00', reserved: '0.00' });
  assert.equal(f.sandbox.requests().filter((r) => r.op === 'refundBet' && (r.body as { betId?: string }).betId === bet.betId).length, 0);
});

test('placement rolls back: the guard survives the rollback and releases the reservation', async () => {
  const bet = await reserved();
  await assert.rejects(withTransaction(f.db.pool, async (tx) => {
    await f.wallet.enqueue(tx, { tenantId: f.tenantId, ...confirm(bet) });
    throw new Error('the bet could not be stored');
  }), /could not be stored/);
  f.clock.advance(WINDOW_MS);
  await f.worker.drain();
  assert.deepEqual(await statuses(bet.betId), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  assert.deepEqual(await f.sandbox.balances(bet.userId), opening);
});

test('a call queued after the guard went out is refused: the bet cannot be taken any more', async () => {
  const bet = await reserved();
  f.clock.advance(WINDOW_MS);
  await f.worker.drain();
  await assert.rejects(f.enqueue(confirm(bet)), (error: unknown) => error instanceof AppError && error.code === 'wallet_reservation_released');
  assert.deepEqual(await statuses(bet.betId), [['reserve', 'delivered'], ['refundBet', 'delivered']], 'nothing written');
});

test('a guard sent once and failed retryably counts as gone out: a late call is refused, one at a time or in a batch', async () => {
  const bet = await reserved();
  f.clock.advance(WINDOW_MS);
  f.sandbox.injectFaults([{ op: 'refundBet', kind: 'apply-then-fail' }]); // the wallet refunds, then answers 500
  await f.worker.drain();
  const { rows } = await f.db.pool.query<{ status: string; attempts: number }>(
    'SELECT status, attempts FROM wallet_calls WHERE bet_id = $1 AND placement_guard', [bet.betId]);
  assert.deepEqual(rows, [{ status: 'pending', attempts: 1 }], 'back to pending for its retry');
  assert.equal((await f.sandbox.balances(bet.userId)).reserved, '0.00', 'the wallet applied it');
  const released = (error: unknown) => error instanceof AppError && error.code === 'wallet_reservation_released';
  await assert.rejects(f.enqueue(confirm(bet)), released);
  await assert.rejects(withTransaction(f.db.pool, (tx) => f.wallet.enqueueMany(tx, [{ tenantId: f.tenantId, ...confirm(bet) }])), released);
  assert.deepEqual(await statuses(bet.betId), [['reserve', 'delivered'], ['refundBet', 'pending']], 'nothing written');
});
