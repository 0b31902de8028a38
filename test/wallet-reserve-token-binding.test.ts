// The user's token stored with a reserve (wallet_calls.secret_enc) is bound to its row: the
// tenant, the call (transactionId), the bet and the user. Copied into another call's row — of
// another bet or another tenant — it does not open there, so the worker never sends it to that
// call; the row's own token still goes out on the worker's retry. Real PostgreSQL and the
// reference wallet sandbox on 127.0.0.1.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { rebindReserveTokens } from '../src/modules/wallet/delivery/reserve-token.ts';
import { writeOutboxRow } from '../src/modules/wallet/outbox/enqueue.ts';
import { CLIENT, reserveMetadata, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

const OPENING = { cash: '1000.00', bonus: '0.00', reserved: '0.00' };
let f: WalletFixture;
before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_TIMEOUT_MS: 250, WAGERLINE_WALLET_LEASE_MS: 3000, WAGERLINE_WALLET_RESERVE_RETRIES: 2 } });
});
after(() => f.close());

/** A reserve whose every ask of placement was answered 503: `unknown`, left to the worker with its token and a conditional refund. */
async function unansweredReserve(tenantId: string, token: string) {
  const betId = randomUUID();
  const userId = randomUUID();
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 503, times: 3 }]);
  const result = await f.wallet.reserve({ tenantId, betId, userId, amount: '10', bonusFlag: false, token, metadata: reserveMetadata(userId) });
  assert.equal(result.outcome, 'unknown');
  return { betId, userId, transactionId: result.transactionId };
}

/** The tokens the wallet received for one reserve's transactionId, ask by ask. */
const tokensSent = (transactionId: string) => f.sandbox.requests()
  .filter((r) => r.op === 'reserve' && (r.body as { transactionId?: string }).transactionId === transactionId)
  .map((r) => (r.body as { token?: string }).token);

const calls = async (betId: string) => (await f.wallet.callsOfBet(betId)).calls.map((c) => `${c.op} ${c.status}`);

test('a sealed token copied into another bet\'s or another tenant\'s reserve is not sent there; its own reserve still sends it', async () => {
  const other = await f.tenants.createTenant({ name: 'Other Brand' });
  await f.wallet.setWallet({ tenantId: other.tenant_id, url: f.sandbox.url, auth: 'client_credentials', ...CLIENT });
  const a = await unansweredReserve(f.tenantId, 'token-of-a');
  const b = await unansweredReserve(f.tenantId, 'token-of-b');
  const c = await unansweredReserve(other.tenant_id, 'token-of-c');
  // A database writer copies a's sealed token over b's and c's.
  await f.db.pool.query(`UPDATE wallet_calls SET secret_enc = (SELECT secret_enc FROM wallet_calls WHERE transaction_id = $1)
                          WHERE transaction_id = ANY($2)`, [a.transactionId, [b.transactionId, c.transactionId]]);

  await f.worker.drain();
  assert.deepEqual(tokensSent(a.transactionId), ['token-of-a', 'token-of-a', 'token-of-a', 'token-of-a'], 'the worker\'s ask carries a\'s own token');
  assert.deepEqual(await calls(a.betId), ['reserve delivered', 'refundBet delivered']);
  assert.deepEqual(await f.sandbox.balances(a.userId), OPENING);
  for (const [moved, own] of [[b, 'token-of-b'], [c, 'token-of-c']] as const) {
    assert.deepEqual(tokensSent(moved.transactionId), [own, own, own], 'only placement\'s own asks: the copied token is never sent');
    assert.deepEqual(await calls(moved.betId), ['reserve failed', 'refundBet pending'], 'parked for an operator, its refund kept');
    const [reserve] = (await f.wallet.callsOfBet(moved.betId)).calls;
    assert.match(reserve!.last_error!, /not sent: the user's token cannot be opened/);
  }
});

test('tokens sealed unbound by the earlier version are bound once where they are and still sent; one unbound after that is refused', async () => {
  // As the earlier version left them: a reserve whose outcome stayed unknown (pending, its refund
  // behind it) and one whose placement died mid-ask (its lease ran out), each with its token
  // sealed without a binding; and one sealed under a key this process does not have.
  const legacy = (token: string, box = f.box) => box.seal(token);
  const unknown = await unansweredReserve(f.tenantId, 'token-of-unknown');
  const lost = await unansweredReserve(f.tenantId, 'token-of-lost');
  await f.db.pool.query('UPDATE wallet_calls SET secret_enc = $2 WHERE transaction_id = $1', [unknown.transactionId, legacy('token-of-unknown')]);
  await f.db.pool.query('UPDATE wallet_calls SET secret_enc = $2 WHERE transaction_id = $1',
    [lost.transactionId, legacy('token-of-lost', createSecretBox(randomBytes(32)))]);
  const orphan = { betId: randomUUID(), userId: randomUUID(), transactionId: randomUUID() };
  const past = new Date(f.clock().getTime() - 60_000);
  await writeOutboxRow(f.db.pool, {
    tenantId: f.tenantId, transactionId: orphan.transactionId, betId: orphan.betId, userId: orphan.userId, op: 'reserve', amount: '7.00',
    bonusFlag: false, extra: { metadata: reserveMetadata(orphan.userId) }, secretEnc: legacy('token-of-orphan'), now: past,
    lease: { owner: 'process-of-the-earlier-version', until: new Date(past.getTime() + 1000) },
  });

  // The first processes of this version start at once: the tokens are bound by one of them, once.
  const runs = await Promise.all([rebindReserveTokens(f.db.pool, f.box), rebindReserveTokens(f.db.pool, f.box)]);
  assert.deepEqual(runs.map((r) => r.rebound).sort(), [0, 2]);
  assert.deepEqual(runs.flatMap((r) => r.unreadable), [lost.transactionId], 'the one this key cannot open is named');
  const { rows } = await f.db.pool.query('SELECT transaction_id, left(secret_enc, 3) AS form FROM wallet_calls WHERE transaction_id = ANY($1) ORDER BY form',
    [[unknown.transactionId, orphan.transactionId, lost.transactionId]]);
  assert.deepEqual(rows.map((r) => r.form), ['v1.', 'v2.', 'v2.']);

  await f.worker.drain();
  assert.deepEqual(tokensSent(unknown.transactionId).at(-1), 'token-of-unknown');
  assert.deepEqual(await calls(unknown.betId), ['reserve delivered', 'refundBet delivered']);
  assert.deepEqual(tokensSent(orphan.transactionId), ['token-of-orphan']);
  assert.deepEqual(await calls(orphan.betId), ['reserve delivered', 'refundBet delivered']);
  assert.deepEqual(await f.sandbox.balances(orphan.userId), OPENING);
  assert.deepEqual(tokensSent(lost.transactionId).length, 3, 'under another key: not sent, as before the upgrade');
  assert.deepEqual(await calls(lost.betId), ['reserve failed', 'refundBet pending']);

  // Later, an unbound token written into a row (one kept from before) is never bound there, nor sent.
  const late = await unansweredReserve(f.tenantId, 'token-of-late');
  await f.db.pool.query('UPDATE wallet_calls SET secret_enc = $2 WHERE transaction_id = $1', [late.transactionId, legacy('token-of-unknown')]);
  assert.equal((await rebindReserveTokens(f.db.pool, f.box)).rebound, 0);
  await f.worker.drain();
  assert.deepEqual(tokensSent(late.transactionId), ['token-of-late', 'token-of-late', 'token-of-late']);
  assert.deepEqual(await calls(late.betId), ['reserve failed', 'refundBet pending']);
});
