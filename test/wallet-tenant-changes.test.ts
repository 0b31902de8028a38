// A tenant's wallet changed (set-wallet: another URL, other credentials) or the tenant disabled
// while calls are queued: a call claimed after the change commits goes to the wallet as it is now
// (the claim and a placement's send at commit check the configuration's version), a call already
// tried at the old URL goes to the new one with the same transactionId and bytes, and a disabled
// tenant's calls still go out (money owed to its users). Real HTTP to two sandboxes on 127.0.0.1.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import type { Tx } from '../src/db/pool.ts';
import type { EnqueuedCall, WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { testServices } from './helpers/app.ts';
import { credit, reserveAndConfirm, takenBet, until, movingWalletFixture, type MovingFixture, type WalletFixture } from './wallet-fixtures.ts';

const MIN = 60_000;
let m: MovingFixture;
let f: WalletFixture;
let moved: WalletSandbox;
before(async () => {
  m = await movingWalletFixture();
  ({ f, moved } = m);
});
after(() => m.close());
beforeEach(() => pointAt(f.sandbox.url));

const pointAt = (url: string) => m.pointAt(url);
const sentTo = (wallet: WalletSandbox, key: 'transactionId' | 'betId', id: string) =>
  wallet.requests().filter((r) => (r.body as Record<string, unknown> | undefined)?.[key] === id);

/** A placement's take step that queues the bet's confirm, to be sent at commit by the placing process. */
const confirmAtCommit = (confirm: WalletCallInput) => ({ take: { context: undefined, group: {
  take: (_tx: Tx, _contexts: unknown[], queueNext: (calls: WalletCallInput[]) => Promise<EnqueuedCall[]>) => queueNext([confirm]),
} } });
const confirmOf = async (betId: string) => (await f.wallet.callsOfBet(betId)).calls.find((c) => c.op === 'confirm');

/** Whether a statement (`claim`: the claim; else any other) waits for a lock in another connection. */
async function waitingForLock(which: 'claim' | 'other'): Promise<boolean> {
  const { rowCount } = await f.db.pool.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
        AND starts_with(query, 'SELECT * FROM wallet_claim') = $1`, [which === 'claim']);
  return rowCount! > 0;
}

/** A process whose worker LISTENs and polls only every ten minutes: it reads configurations when it starts, then as told. */
async function listeningProcess() {
  const services = testServices(f.db, f.box, { settings: { ...f.settings, WAGERLINE_WALLET_POLL_MS: 600_000 }, clock: f.clock, listenUrl: f.db.url });
  const worker = services.wallet.createWorker();
  await worker.start();
  return { wallet: services.wallet, close: async () => { await worker.stop(); await services.close(); } };
}

test('a call queued after the wallet was moved goes to the new URL, though the worker read the old one', async () => {
  const process = await listeningProcess();
  try {
    await pointAt(moved.url);
    const { betId, userId } = await takenBet(moved);
    const [call] = await f.enqueue(credit(betId, userId));
    await until('the credit delivered', async () => (await f.call(call!.transactionId)).status === 'delivered');
    assert.deepEqual([sentTo(f.sandbox, 'transactionId', call!.transactionId).length, sentTo(moved, 'transactionId', call!.transactionId).length], [0, 1]);
  } finally {
    await process.close();
  }
});

test('a placement after the move sends its confirm at commit where its reserve went: the new URL', async () => {
  const process = await listeningProcess();
  try {
    await pointAt(moved.url);
    const b = reserveAndConfirm(f.tenantId);
    assert.equal((await process.wallet.reserve(b.input, confirmAtCommit(b.confirm))).outcome, 'reserved');
    const confirm = () => confirmOf(b.betId);
    await until('the confirm answered', async () => ['delivered', 'failed'].includes((await confirm())?.status ?? ''));
    const answered = await confirm();
    // On failure, say where each wallet saw the bet and why the confirm stopped (under load, the worker's first claim once
    // checked the old version before the move and took the confirm after it: the next test holds a claim there).
    assert.equal(answered?.status, 'delivered', `not refused by the old wallet, which never saw the reserve: ${JSON.stringify({ confirm: answered,
      old: sentTo(f.sandbox, 'betId', b.betId).map((r) => r.op), moved: sentTo(moved, 'betId', b.betId).map((r) => r.op) })}`);
    assert.deepEqual([sentTo(f.sandbox, 'betId', b.betId).map((r) => r.op), sentTo(moved, 'betId', b.betId).map((r) => r.op)], [[], ['reserve', 'confirm']]);
  } finally {
    await process.close();
  }
});

test('a claim that read the configuration before the move, still running when it commits, takes nothing queued after it', async () => {
  // A claim (its configuration read, the old URL) held between its check and its take: it waits
  // for a dead sender's call (leased, lease over) that another transaction has locked.
  const [dead] = await f.enqueue(await f.creditOfTakenBet());
  await f.db.pool.query("UPDATE wallet_calls SET status = 'sending', lease_owner = 'gone', lease_until = $2 WHERE transaction_id = $1",
    [dead!.transactionId, new Date(f.clock().getTime() - MIN)]);
  const locker = await f.db.pool.connect();
  await locker.query('BEGIN');
  await locker.query('SELECT 1 FROM wallet_calls WHERE transaction_id = $1 FOR UPDATE', [dead!.transactionId]);
  let locked = true;
  const process = await listeningProcess();
  try {
    await until('the claim waits for the locked call', () => waitingForLock('claim'));
    // The move, then a placement: its reserve goes to the new URL, its confirm is queued (the
    // worker holds the old configuration) — unless the move waits for the claim to end.
    const b = reserveAndConfirm(f.tenantId);
    const placed = pointAt(moved.url).then(() => process.wallet.reserve(b.input, confirmAtCommit(b.confirm)));
    placed.catch(() => undefined);
    const confirm = () => confirmOf(b.betId);
    await until('the confirm queued, or the move waiting for the claim', async () => (await confirm()) !== undefined
      || waitingForLock('other'));
    await locker.query('ROLLBACK');
    locked = false;
    assert.equal((await placed).outcome, 'reserved');
    await until('the confirm answered', async () => ['delivered', 'failed'].includes((await confirm())?.status ?? ''));
    assert.deepEqual([sentTo(f.sandbox, 'betId', b.betId).map((r) => r.op), sentTo(moved, 'betId', b.betId).map((r) => r.op)], [[], ['reserve', 'confirm']]);
    assert.equal((await confirm())?.status, 'delivered');
  } finally {
    if (locked) await locker.query('ROLLBACK');
    locker.release();
    await process.close();
  }
});

test('a call the old URL left unanswered is sent to the new one, same transactionId and body', async () => {
  // The bet is taken at both wallets (the new one as a copy of the old one's books).
  const { betId, userId } = await f.takenBet();
  await moved.seedBets([{ betId, userId, bonusFlag: false, reserved: '1.00', confirmed: '1.00', reserveTransactionId: randomUUID(), confirmTransactionId: randomUUID() }]);
  const [call] = await f.enqueue(credit(betId, userId));
  f.sandbox.injectFaults([{ op: 'credit', kind: 'apply-then-fail' }]);
  await f.worker.drain();
  assert.equal((await f.call(call!.transactionId)).status, 'pending');
  await pointAt(moved.url);
  f.clock.advance(5 * MIN);
  await f.worker.drain();
  assert.equal((await f.call(call!.transactionId)).status, 'delivered');
  const [first] = sentTo(f.sandbox, 'transactionId', call!.transactionId);
  const [second] = sentTo(moved, 'transactionId', call!.transactionId);
  assert.deepEqual(second!.body, first!.body);
});

test('each change gets a version later than the last, the clock behind it or not: two changes in a millisecond are two', async () => {
  await f.db.pool.query("UPDATE wallet_configs SET updated_at = clock_timestamp() + interval '1 hour' WHERE tenant_id = $1", [f.tenantId]);
  const before = (await f.wallet.getWallet(f.tenantId))!.updated_at;
  const after = (await pointAt(f.sandbox.url)).updated_at;
  assert.ok(after > before, `${after} after ${before}`);
});

test('a disabled tenant\'s queued calls still go out: they are money owed to its users', async () => {
  const [call] = await f.enqueue(await f.creditOfTakenBet());
  await f.tenants.disableTenant(f.tenantId);
  await f.worker.drain();
  assert.equal((await f.call(call!.transactionId)).status, 'delivered');
  assert.equal((await f.sandbox.effects()).get(call!.transactionId), 1);
});
