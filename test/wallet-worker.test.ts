// The worker's life cycle: one tenant's configuration that cannot be opened costs only that
// tenant, and stop() leaves nothing claimed behind. Real PostgreSQL and the sandbox over HTTP on
// 127.0.0.1; the worker is held at a known point by a table lock, not by timing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { withTransaction } from '../src/db/pool.ts';
import { upsertWalletConfig } from '../src/modules/wallet/config/wallet-config.queries.ts';
import { walletBinding } from '../src/modules/wallet/config/wallet-config.service.ts';
import { CLIENT, walletFixture, type WalletFixture, until } from './wallet-fixtures.ts';

let f: WalletFixture;
before(async () => {
  f = await walletFixture();
});
after(() => f.close());

const sent = (transactionId: string) =>
  f.sandbox.requests().some((r) => (r.body as { transactionId?: string } | undefined)?.transactionId === transactionId);

/** Stores a wallet whose client secret was sealed under another WAGERLINE_SECRET_KEY. */
const foreignWallet = (tenantId: string) => upsertWalletConfig(f.db.pool, {
  tenant_id: tenantId, url: f.sandbox.url, auth_kind: 'client_credentials', client_id: CLIENT.clientId,
  client_secret_enc: createSecretBox(randomBytes(32)).seal(CLIENT.clientSecret, walletBinding(tenantId, 'client_secret_enc', f.sandbox.url)),
  api_key_enc: null, api_key_header: null, signing_secret_enc: null, amount_unit: 'dollars', concurrency: 5, private_network: true,
});

test('a tenant whose wallet secret cannot be opened is skipped and logged once per version; the others are served', async () => {
  const other = await f.tenants.createTenant({ name: 'Other Key' });
  await foreignWallet(other.tenant_id);
  const stuckCredit = await f.creditOfTakenBet();
  const stuck = await withTransaction(f.db.pool, (tx) => f.wallet.enqueue(tx, { tenantId: other.tenant_id, ...stuckCredit }));
  const [ours] = await f.enqueue(await f.creditOfTakenBet());
  const { logs, service, worker } = f.loggedWorker();
  const unreadable = () => logs.filter((l) => l.message.startsWith('wallet configuration unreadable'));
  await worker.start(); // rejected before, and serve did not start
  try {
    await until('the other tenant\'s call to be delivered', async () => (await f.call(ours!.transactionId)).status === 'delivered');
    await worker.drain();
    await worker.drain();
    assert.deepEqual(unreadable().map((l) => l.fields?.tenantId), [other.tenant_id], 'logged once, not on every reload');
    assert.doesNotMatch(JSON.stringify(unreadable()), new RegExp(CLIENT.clientSecret));
    const row = await f.call(stuck.transactionId);
    assert.deepEqual([row.status, row.attempts, row.lease_owner], ['pending', 0, null]);
    assert.ok(!sent(stuck.transactionId));

    await foreignWallet(other.tenant_id); // a new version, still unreadable: logged again
    await worker.drain();
    assert.equal(unreadable().length, 2);

    await f.wallet.setWallet({ tenantId: other.tenant_id, url: f.sandbox.url, auth: 'client_credentials', ...CLIENT });
    await worker.drain();
    assert.equal((await f.call(stuck.transactionId)).status, 'delivered');
    assert.equal(unreadable().length, 2);
  } finally {
    await worker.stop();
    await service.close();
  }
});

test('stop() waits for the poll round in progress, which claims nothing more: no call is left leased or sent after stop', async () => {
  const [call] = await f.enqueue(await f.creditOfTakenBet());
  const { service, worker } = f.loggedWorker();
  const lock = await f.db.pool.connect();
  let released = false;
  try {
    // Hold the worker's first poll round in the orphaned-reserve rescue, just before it claims.
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE wallet_calls IN ACCESS EXCLUSIVE MODE');
    await worker.start();
    await until('the poll round to wait for the table', async () => (await f.db.pool.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'wallet_calls'::regclass AND NOT granted",
    )).rows[0].n > 0);
    let resolvedWhileHeld = false;
    const stopping = worker.stop().then(() => {
      resolvedWhileHeld = !released;
    });
    await new Promise((resolve) => setImmediate(resolve)); // a stop() that does not wait has resolved by now
    released = true;
    await lock.query('COMMIT');
    await stopping;
    assert.equal(resolvedWhileHeld, false, 'stop() resolved while a poll round was still running');
  } finally {
    if (!released) await lock.query('ROLLBACK');
    lock.release();
    await worker.stop();
    await service.close();
  }
  const leased = await f.db.pool.query("SELECT transaction_id FROM wallet_calls WHERE status = 'sending' AND lease_owner LIKE $1", [`${worker.workerId}/%`]);
  assert.deepEqual(leased.rows, []);
  const row = await f.call(call!.transactionId);
  assert.deepEqual([row.status, row.attempts, row.lease_owner], ['pending', 0, null], 'claimed after stop()');
  assert.ok(!sent(call!.transactionId), 'sent after stop()');
  await f.worker.drain(); // left for the next worker, untouched
  assert.equal((await f.call(call!.transactionId)).status, 'delivered');
});
