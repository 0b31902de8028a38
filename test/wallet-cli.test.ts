// The wallet commands through the real bin/wagerline: set-wallet in both auth modes (no secret
// printed or stored in clear), wallet failed / retry / resolve / calls.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { withTransaction } from '../src/db/pool.ts';
import { walletBinding } from '../src/modules/wallet/config/wallet-config.service.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { testServices } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { CLIENT, credit, takenBet } from './wallet-fixtures.ts';

let db: TestDatabase;
let sandbox: WalletSandbox;
const key = randomBytes(32);
let env: Record<string, string>;

before(async () => {
  db = await freshDatabase();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  env = { DATABASE_URL: db.url, WAGERLINE_SECRET_KEY: key.toString('base64'), LOG_LEVEL: 'silent' };
});
after(async () => {
  await sandbox.close();
  await db.drop();
});

test('set-wallet, a parked call, wallet failed, wallet retry, wallet calls', async () => {
  const tenant = await testServices(db, createSecretBox(key)).tenants.createTenant({ name: 'CLI' });
  const set = await runCli(['tenant', 'set-wallet', tenant.tenant_id, '--url', sandbox.url, '--auth', 'client_credentials',
    '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret, '--signing-secret', 'sign-me-please-0123', '--concurrency', '8'], env);
  assert.equal(set.code, 0, set.stderr);
  const view = set.json();
  assert.equal(view.auth, 'client_credentials');
  assert.equal(view.signed, true);
  assert.equal(view.concurrency, 8);
  assert.ok(!set.stdout.includes(CLIENT.clientSecret) && !set.stdout.includes('sign-me-please'));
  const stored = JSON.stringify((await db.pool.query('SELECT * FROM wallet_configs')).rows);
  assert.ok(!stored.includes(CLIENT.clientSecret) && !stored.includes('sign-me-please'));

  const bad = await runCli(['tenant', 'set-wallet', tenant.tenant_id, '--url', 'ftp://x', '--auth', 'api_key', '--api-key', 'k'], env);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--url must use https:\/\//);

  const { wallet } = testServices(db, createSecretBox(key), {
    settings: { WAGERLINE_WALLET_TIMEOUT_MS: 2000, WAGERLINE_WALLET_LEASE_MS: 5000, WAGERLINE_WALLET_POLL_MS: 1000, WAGERLINE_WALLET_RESERVE_RETRIES: 0 },
  });
  const worker = wallet.createWorker({ listen: false });
  const { betId, userId } = await takenBet(sandbox);
  const [call] = await withTransaction(db.pool, async (tx) => [await wallet.enqueue(tx, { tenantId: tenant.tenant_id, ...credit(betId, userId) })]);
  sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 422 }]);
  await worker.drain();

  const failed = await runCli(['wallet', 'failed', '--tenant', tenant.tenant_id], env);
  assert.equal(failed.code, 0, failed.stderr);
  assert.deepEqual(failed.json().calls.map((c: { call_id: string }) => c.call_id), [call!.transactionId]);
  const retry = await runCli(['wallet', 'retry', call!.transactionId], env);
  assert.equal(retry.code, 0, retry.stderr);
  assert.equal(retry.json().status, 'pending');
  const again = await runCli(['wallet', 'retry', call!.transactionId], env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /is pending and has not failed: only a failed call, or one waiting after a failure, is retried/);
  await worker.drain();
  const calls = await runCli(['wallet', 'calls', '--bet', betId], env);
  const listed = calls.json();
  assert.equal(listed.calls[0].status, 'delivered');
  assert.deepEqual(listed.calls[0].attempt_log.map((a: { http_status: number }) => a.http_status), [422, 200]);
  await worker.stop();
  await wallet.close();
});

test('set-wallet --auth api_key: the key is sealed, never printed; switching modes clears the other secrets; resolve unblocks a bet', async () => {
  const tenant = await testServices(db, createSecretBox(key)).tenants.createTenant({ name: 'CLI api key' });
  const apiKey = 'operator-api-key-0123456789';
  const set = await runCli(['tenant', 'set-wallet', tenant.tenant_id, '--url', `${sandbox.url}/`, '--auth', 'api_key',
    '--api-key', apiKey, '--api-key-header', 'X-Operator-Key', '--amount-unit', 'cents', '--no-verify'], env); // this sandbox takes client credentials
  assert.equal(set.code, 0, set.stderr);
  const view = set.json();
  assert.deepEqual([view.auth, view.api_key_header, view.client_id, view.signed, view.amount_unit, view.url], ['api_key', 'x-operator-key', null, false, 'cents', sandbox.url]);
  assert.ok(!set.stdout.includes(apiKey) && !set.stderr.includes(apiKey));
  const row = (await db.pool.query('SELECT * FROM wallet_configs WHERE tenant_id = $1', [tenant.tenant_id])).rows[0];
  assert.ok(!JSON.stringify(row).includes(apiKey));
  assert.equal(createSecretBox(key).open(row.api_key_enc, walletBinding(tenant.tenant_id, 'api_key_enc', sandbox.url)), apiKey);

  const back = await runCli(['tenant', 'set-wallet', tenant.tenant_id, '--url', sandbox.url, '--auth', 'client_credentials',
    '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret], env);
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual([back.json().auth, back.json().api_key_header], ['client_credentials', null]);
  const switched = (await db.pool.query('SELECT api_key_enc, client_secret_enc FROM wallet_configs WHERE tenant_id = $1', [tenant.tenant_id])).rows[0];
  assert.equal(switched.api_key_enc, null);
  assert.ok(switched.client_secret_enc);
  const missing = await runCli(['tenant', 'set-wallet', tenant.tenant_id, '--url', sandbox.url, '--auth', 'api_key'], env);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--auth api_key needs --api-key/);

  const { wallet } = testServices(db, createSecretBox(key), {
    settings: { WAGERLINE_WALLET_TIMEOUT_MS: 2000, WAGERLINE_WALLET_LEASE_MS: 5000, WAGERLINE_WALLET_POLL_MS: 1000, WAGERLINE_WALLET_RESERVE_RETRIES: 0 },
  });
  const worker = wallet.createWorker({ listen: false });
  try {
    const { betId, userId } = await takenBet(sandbox);
    const [first, second] = await withTransaction(db.pool, async (tx) => [
      await wallet.enqueue(tx, { tenantId: tenant.tenant_id, ...credit(betId, userId) }),
      await wallet.enqueue(tx, { tenantId: tenant.tenant_id, ...credit(betId, userId) }),
    ]);
    sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 400 }]);
    await worker.drain();
    const all = await runCli(['wallet', 'failed'], env);
    assert.ok(all.json().calls.some((c: { call_id: string }) => c.call_id === first!.transactionId));
    const resolved = await runCli(['wallet', 'resolve', first!.transactionId, '--note', 'credited by hand'], env);
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.deepEqual([resolved.json().status, resolved.json().note], ['resolved', 'credited by hand']);
    await worker.drain();
    const calls = (await runCli(['wallet', 'calls', '--bet', betId], env)).json().calls;
    assert.deepEqual(calls.map((c: { transaction_id: string; status: string }) => [c.transaction_id, c.status]),
      [[first!.transactionId, 'resolved'], [second!.transactionId, 'delivered']]);
  } finally {
    await worker.stop();
    await wallet.close();
  }
});
