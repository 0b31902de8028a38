// Many calls queued at once (wallet.enqueueMany): each bet's calls get consecutive sequences in
// array order, also when a batch spans several statements and around single enqueues; a batch is
// refused whole, with nothing written, by any call enqueue would refuse; the workers are woken at
// commit; the real worker delivers a batch to the sandbox in each bet's order.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { withTransaction, type Queryable } from '../src/db/pool.ts';
import { enqueueWalletCalls } from '../src/modules/wallet/outbox/enqueue-batch.ts';
import type { WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import { CLIENT, credit, reserveMetadata, walletFixture, type WalletFixture, until } from './wallet-fixtures.ts';

const WINDOW_MS = 30_000;
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_PLACEMENT_WINDOW_MS: WINDOW_MS } });
});
after(() => f.close());

type Call = Omit<WalletCallInput, 'tenantId'> & { tenantId?: string };
const inputs = (calls: Call[]) => calls.map((c) => ({ tenantId: f.tenantId, ...c }));
/** A batch in its own transaction; `statementCalls` small makes it span several statements. */
const batch = (calls: Call[], statementCalls?: number) => withTransaction(f.db.pool, (tx) => (statementCalls
  ? enqueueWalletCalls(tx, inputs(calls), { clock: f.clock, statementCalls })
  : f.wallet.enqueueMany(tx, inputs(calls))));

/**
 * A batch that must be refused, in a transaction that commits anyway: whatever the batch wrote
 * before refusing would stay. One call per statement, so that a batch spans several.
 */
const refused = (calls: Call[], error: { code: string; message: string | RegExp }) => withTransaction(f.db.pool, async (tx) => {
  await assert.rejects(enqueueWalletCalls(tx, inputs(calls), { clock: f.clock, statementCalls: 1 }), error);
});

async function reserved(amount = '10') {
  const bet = { betId: randomUUID(), userId: randomUUID() };
  const result = await f.wallet.reserve({ tenantId: f.tenantId, ...bet, amount, bonusFlag: false, token: 't', metadata: reserveMetadata(bet.userId) });
  assert.equal(result.outcome, 'reserved');
  return bet;
}

const confirm = (bet: { betId: string; userId: string }, amount = '10') =>
  ({ ...bet, op: 'confirm' as const, amount, bonusFlag: false, betMetadata: { id: bet.betId, legs: [] } });
const refund = (bet: { betId: string; userId: string }, amount = '10') => ({ ...bet, op: 'refundBet' as const, amount, bonusFlag: false });
const cancelDebit = (bet: { betId: string; userId: string }, amount = '5') =>
  ({ ...bet, op: 'debit' as const, amount, bonusFlag: false, transactionType: 'betwincancelled' });
const settle = (bet: { betId: string; userId: string }, amount = '25') => ({ ...bet, op: 'settleBet' as const, amount, bonusFlag: false });

/** A bet's calls in sequence order: [seq, op, transactionId, status]. */
const callsOf = async (betId: string) => (await f.db.pool.query(
  'SELECT seq, op, transaction_id, status FROM wallet_calls WHERE bet_id = $1 ORDER BY seq', [betId],
)).rows.map((r) => [r.seq, r.op, r.transaction_id, r.status]);
const written = async (betIds: string[]) => (await f.db.pool.query(
  `SELECT (SELECT count(*)::int FROM wallet_calls WHERE bet_id = ANY($1)) + (SELECT count(*)::int FROM wallet_bet_sequences WHERE bet_id = ANY($1)) AS n`,
  [betIds])).rows[0].n as number;

for (const statementCalls of [undefined, 2]) {
  test(`mixed bets and operations: each bet's calls get consecutive sequences in array order (${statementCalls ? `${statementCalls} calls per statement` : 'one statement'})`, async () => {
    const a = await reserved();
    const b = await reserved();
    const c = { betId: randomUUID(), userId: randomUUID() };
    const calls = [confirm(a), credit(c.betId, c.userId), confirm(b), cancelDebit(a), { ...cancelDebit(c), transactionType: 'deductbetwin' },
      refund(a), settle(b), credit(c.betId, c.userId, '3.00')];
    const out = await batch(calls, statementCalls);
    assert.deepEqual(out.map((o) => [o.betId, o.op]), calls.map((i) => [i.betId, i.op]), 'returned in the order given');
    const seqs = (betId: string) => out.filter((o) => o.betId === betId).map((o) => o.seq);
    assert.deepEqual([seqs(a.betId), seqs(b.betId), seqs(c.betId)], [[3, 4, 5], [3, 4], [1, 2, 3]], 'after reserve (1) and guard (2)');
    for (const [bet, earlier] of [[a, 2], [b, 2], [c, 0]] as const) {
      const expected = out.filter((o) => o.betId === bet.betId).map((o) => [o.seq, o.op, o.transactionId, 'pending']);
      assert.deepEqual((await callsOf(bet.betId)).slice(earlier), expected);
    }
    assert.deepEqual((await callsOf(a.betId)).slice(0, 2).map(([seq, op, , status]) => [seq, op, status]), [[1, 'reserve', 'delivered'], [2, 'refundBet', 'skipped']], 'guard released');
    const [again] = await batch([credit(a.betId, a.userId)], statementCalls);
    assert.equal(again!.seq, 6, 'a released guard is no obstacle');
  });
}

test('one bet\'s calls split across statements keep their order', async () => {
  const c = { betId: randomUUID(), userId: randomUUID() };
  const calls = Array.from({ length: 7 }, (_, i) => credit(c.betId, c.userId, `${i + 1}.00`));
  const out = await batch(calls, 3);
  assert.deepEqual(out.map((o) => o.seq), [1, 2, 3, 4, 5, 6, 7]);
  const { rows } = await f.db.pool.query('SELECT amount FROM wallet_calls WHERE bet_id = $1 ORDER BY seq', [c.betId]);
  assert.deepEqual(rows.map((r) => r.amount), ['1.00', '2.00', '3.00', '4.00', '5.00', '6.00', '7.00']);
});

test('interleaved with single enqueues: in one transaction, and across transactions in commit order', async () => {
  const d = { betId: randomUUID(), userId: randomUUID() };
  const e = { betId: randomUUID(), userId: randomUUID() };
  const ids = await withTransaction(f.db.pool, async (tx) => {
    const one = await f.wallet.enqueue(tx, { tenantId: f.tenantId, ...credit(d.betId, d.userId) });
    const many = await f.wallet.enqueueMany(tx, inputs([credit(d.betId, d.userId), credit(e.betId, e.userId), cancelDebit(d)]));
    const last = await f.wallet.enqueue(tx, { tenantId: f.tenantId, ...credit(d.betId, d.userId) });
    return [one, many[0]!, many[2]!, last].map((c) => c.transactionId);
  });
  assert.deepEqual((await callsOf(d.betId)).map(([seq, , id]) => [seq, id]), ids.map((id, i) => [i + 1, id]));

  // A batch holds its bets' sequences until it commits: a single enqueue of the same bet waits and comes after.
  const tx = await f.db.pool.connect();
  try {
    await tx.query('BEGIN');
    const first = await f.wallet.enqueueMany(tx, inputs([credit(e.betId, e.userId), credit(e.betId, e.userId)]));
    const single = withTransaction(f.db.pool, (other) => f.wallet.enqueue(other, { tenantId: f.tenantId, ...credit(e.betId, e.userId) }));
    await until('the single enqueue to wait for the batch', async () => (await f.db.pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0].n > 0);
    await tx.query('COMMIT');
    const later = await single;
    assert.deepEqual([...first.map((c) => c.seq), later.seq], [2, 3, 4]);
  } finally {
    tx.release();
  }
});

test('a refundBet without a delivered reserve refuses the whole batch, naming the first; nothing is written even if the caller commits', async () => {
  const p = await reserved();
  // Statements go in key order: x's comes first, and the first offending bet in array order is
  // the later one in key order.
  const ids = [randomUUID(), randomUUID(), randomUUID()].sort();
  const [first, lo, hi] = [ids[0]!, ids[1]!, ids[2]!];
  const x = { betId: first, userId: randomUUID() };
  await refused([confirm(p), credit(x.betId, x.userId), refund({ betId: hi, userId: x.userId }), refund({ betId: lo, userId: x.userId })],
    { code: 'wallet_no_reservation', message: `refundBet of bet ${hi}: the bet has no reserve (refundBet only after a successful reservation: docs/wallet-delivery.md)` });
  assert.equal(await written([x.betId, lo, hi]), 0);
  assert.deepEqual((await callsOf(p.betId)).map(([, op, , status]) => [op, status]), [['reserve', 'delivered'], ['refundBet', 'pending']], 'guard not released');

  const poor = { betId: randomUUID(), userId: randomUUID() };
  const rejected = await f.wallet.reserve({ tenantId: f.tenantId, ...poor, amount: '5000', bonusFlag: false, token: 't', metadata: reserveMetadata(poor.userId) });
  assert.equal(rejected.outcome, 'rejected');
  await refused([credit(), refund(poor)], { code: 'wallet_no_reservation', message: new RegExp(`^refundBet of bet ${poor.betId}: its reserve is refused, not delivered`) });
});

test('a placement guard that went out refuses the batch; nothing is written', async () => {
  const g = await reserved();
  f.clock.advance(WINDOW_MS);
  await f.worker.drain();
  assert.deepEqual((await callsOf(g.betId)).map(([, op, , status]) => [op, status]), [['reserve', 'delivered'], ['refundBet', 'delivered']]);
  const x = { betId: randomUUID(), userId: randomUUID() };
  await refused([credit(x.betId, x.userId), confirm(g)], { code: 'wallet_reservation_released', message: new RegExp(`^bet ${g.betId}: its reservation was released`) });
  assert.equal(await written([x.betId]), 0);
  assert.equal((await callsOf(g.betId)).length, 2);
});

test('a tenant without wallet refuses the batch with wallet_not_configured; nothing is written', async () => {
  const bare = await f.tenants.createTenant({ name: 'No Wallet' });
  const x = { betId: randomUUID(), userId: randomUUID() };
  const y = { betId: randomUUID(), userId: randomUUID() };
  await refused([credit(x.betId, x.userId), { tenantId: bare.tenant_id, ...credit(y.betId, y.userId) }],
    { code: 'wallet_not_configured', message: `tenant "${bare.tenant_id}" has no wallet configured (wagerline tenant set-wallet)` });
  assert.equal(await written([x.betId, y.betId]), 0);
});

test('a call whose fields enqueue refuses refuses the batch, naming the call', async () => {
  const x = { betId: randomUUID(), userId: randomUUID() };
  await refused([credit(x.betId, x.userId), { ...credit(x.betId, x.userId), amount: '1.001' }],
    { code: 'bad_request', message: /^calls\[1\]: amount must be a decimal string/ });
  assert.equal(await written([x.betId]), 0);
});

test('an empty batch is a no-op: no statement at all', async () => {
  const noStatements = { query: () => Promise.reject(new Error('a statement was sent')) } as unknown as Queryable;
  assert.deepEqual(await f.wallet.enqueueMany(noStatements, []), []);
});

test('the workers are woken at commit, once per tenant of the batch, never before', async () => {
  const other = await f.tenants.createTenant({ name: 'Second Wallet' });
  await f.wallet.setWallet({ tenantId: other.tenant_id, url: f.sandbox.url, auth: 'client_credentials', ...CLIENT });
  const listener = new pg.Client({ connectionString: f.db.url });
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (n) => heard.push(n.payload!));
  await listener.query('LISTEN wallet_calls');
  try {
    const tx = await f.db.pool.connect();
    try {
      await tx.query('BEGIN');
      await enqueueWalletCalls(tx, [...inputs([credit(), credit(), credit()]), { tenantId: other.tenant_id, ...credit() }], { clock: f.clock, statementCalls: 1 });
      await listener.query('SELECT 1'); // a round trip: any notification sent so far has arrived
      assert.deepEqual(heard, [], 'nothing before commit');
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
    await until('the wake-ups', () => heard.length >= 2);
    await listener.query('SELECT 1');
    assert.deepEqual(heard.sort(), [f.tenantId, other.tenant_id].sort());
  } finally {
    await listener.end();
  }
});

test('the worker delivers a batch to the wallet in each bet\'s order', async () => {
  const bets = await Promise.all(Array.from({ length: 20 }, () => reserved()));
  const won = bets.slice(0, 10);
  const cancelled = bets.slice(10);
  // Placement's confirms and the race's settlement in one batch, bets interleaved; then half the
  // winners cancelled (their winnings taken back, then their stake). The sandbox refuses a
  // settleBet before its confirm and a debit beyond the winnings paid, so any overtaking shows up
  // as a refused call.
  const calls = [...bets.map((b) => confirm(b)), ...bets.map((b) => settle(b)), ...cancelled.flatMap((b) => [cancelDebit(b, '25'), refund(b)])];
  const out = await batch(calls);
  f.sandbox.injectFaults([{ kind: 'status', status: 503, times: 15 }]);
  await f.worker.drain();
  f.clock.advance(5 * 60_000);
  await f.worker.drain();
  const arrivals = new Map<string, string[]>();
  for (const r of f.sandbox.requests()) {
    const body = r.body as { betId?: string; transactionId?: string } | undefined;
    if (!body?.betId || r.op === 'reserve' || r.status !== 200) continue;
    arrivals.set(body.betId, [...(arrivals.get(body.betId) ?? []), body.transactionId!]);
  }
  for (const bet of bets) {
    assert.deepEqual(arrivals.get(bet.betId), out.filter((o) => o.betId === bet.betId).map((o) => o.transactionId), `bet ${bet.betId}`);
  }
  const effects = await f.sandbox.effects();
  for (const o of out) assert.equal((await f.call(o.transactionId)).status, 'delivered');
  for (const o of out) assert.equal(effects.get(o.transactionId), 1);
  // 1000 − 10 confirmed + 25 won; 1000 − 10 confirmed + 25 won − 25 taken back + 10 refunded.
  assert.deepEqual(await f.sandbox.balances(won[0]!.userId), { cash: '1015.00', bonus: '0.00', reserved: '0.00' });
  assert.deepEqual(await f.sandbox.balances(cancelled[0]!.userId), { cash: '1000.00', bonus: '0.00', reserved: '0.00' });
});
