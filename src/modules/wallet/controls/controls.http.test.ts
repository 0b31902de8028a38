// The wallet-call controls on the admin API (scope admin): each route's happy path, 401 / 403 /
// 400, another tenant's call or bet a 404 (never changed, never shown), and the same JSON as the
// CLI for `wallet failed`.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction } from '../../../db/pool.ts';
import { startWalletSandbox } from '../../../tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../../../tools/wallet-sandbox/types.ts';
import { createTestApp, seedClient, type TestContext } from '../../../../test/helpers/app.ts';
import { cliEnv, runCli } from '../../../../test/helpers/cli.ts';
import { CLIENT, credit } from '../../../../test/wallet-fixtures.ts';

let ctx: TestContext;
let sandbox: WalletSandbox;
let admin: Awaited<ReturnType<typeof seedClient>>;
let other: Awaited<ReturnType<typeof seedClient>>;
before(async () => {
  ctx = await createTestApp();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  admin = await seedClient(ctx, { scopes: ['admin'] });
  other = await seedClient(ctx, { scopes: ['admin'] });
  await ctx.services.wallet.setWallet({
    tenantId: admin.tenant.tenant_id, url: sandbox.url, auth: 'client_credentials', clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret,
    amountUnit: 'dollars', concurrency: 8, verify: false,
  } as never);
});
after(async () => {
  await sandbox.close();
  await ctx.close();
});

type Method = 'GET' | 'POST';
const call = (method: Method, url: string, payload?: unknown, auth: Record<string, string> = admin.auth) =>
  ctx.app.inject({ method, url, headers: auth, ...(payload !== undefined && { payload: payload as object }) });
const T = (tenant = admin) => `/admin/tenants/${tenant.tenant.tenant_id}`;

/** A credit of a new bet of the admin's tenant, refused for good by the wallet: parked as failed. */
async function parkedCall(): Promise<{ betId: string; callId: string }> {
  const { wallet } = ctx.services;
  const betId = randomUUID();
  const [queued] = await withTransaction(ctx.db.pool, async (tx) => [await wallet.enqueue(tx, { tenantId: admin.tenant.tenant_id, ...credit(betId) })]);
  sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 422 }]);
  const worker = wallet.createWorker({ listen: false });
  await worker.drain();
  await worker.stop();
  return { betId, callId: queued!.transactionId };
}

const statusOf = async (callId: string) =>
  (await ctx.db.pool.query<{ status: string }>('SELECT status FROM wallet_calls WHERE transaction_id = $1', [callId])).rows[0]!.status;

test('wallet failed and wallet calls: the same JSON as the CLI, the tenant\'s own calls only', async () => {
  const { betId, callId } = await parkedCall();
  const failed = await call('GET', `${T()}/wallet-calls/failed`);
  assert.equal(failed.statusCode, 200, failed.body);
  assert.ok(failed.json().calls.some((c: { call_id: string }) => c.call_id === callId));
  const cli = await runCli(['wallet', 'failed', '--tenant', admin.tenant.tenant_id], cliEnv(ctx.db.url));
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(failed.json(), cli.json());
  const none = await call('GET', `${T(other)}/wallet-calls/failed`, undefined, other.auth);
  assert.deepEqual(none.json(), { count: 0, calls: [] });

  const calls = await call('GET', `${T()}/bets/${betId}/wallet-calls`);
  assert.equal(calls.statusCode, 200, calls.body);
  assert.equal(calls.json().bet_id, betId);
  assert.deepEqual(calls.json().calls.map((c: { call_id: string; status: string }) => [c.call_id, c.status]), [[callId, 'failed']]);
  assert.deepEqual(calls.json().calls[0].attempt_log.map((a: { http_status: number }) => a.http_status), [422]);
  const cliCalls = await runCli(['wallet', 'calls', '--bet', betId], cliEnv(ctx.db.url));
  assert.deepEqual(calls.json(), cliCalls.json());
  const upper = await call('GET', `${T()}/bets/${betId.toUpperCase()}/wallet-calls`);
  assert.equal(upper.statusCode, 200, upper.body);
});

test('another tenant\'s call or bet is a 404: never changed, never shown', async () => {
  const { betId, callId } = await parkedCall();
  const bet = await call('GET', `${T(other)}/bets/${betId}/wallet-calls`, undefined, other.auth);
  assert.equal(bet.statusCode, 404, bet.body);
  assert.equal(bet.json().code, 'bet_not_found');
  assert.equal((await call('GET', `${T()}/bets/${randomUUID()}/wallet-calls`)).statusCode, 404);
  const retry = await call('POST', `${T(other)}/wallet-calls/${callId}/retry`, undefined, other.auth);
  assert.equal(retry.statusCode, 404, retry.body);
  assert.equal(retry.json().code, 'wallet_call_not_found');
  const resolve = await call('POST', `${T(other)}/wallet-calls/${callId}/resolve`, { note: 'not mine' }, other.auth);
  assert.equal(resolve.statusCode, 404, resolve.body);
  assert.ok(!retry.body.includes(betId) && !resolve.body.includes(betId) && !bet.body.includes(callId));
  assert.equal(await statusOf(callId), 'failed');
  assert.equal((await call('POST', `${T()}/wallet-calls/${randomUUID()}/retry`)).statusCode, 404);
});

test('retry re-queues a parked call; resolve closes one with its note; neither moves a call that is not failed', async () => {
  const first = await parkedCall();
  const second = await parkedCall(); // parked before the retry: a worker would deliver the retried call
  const retry = await call('POST', `${T()}/wallet-calls/${first.callId}/retry`);
  assert.equal(retry.statusCode, 200, retry.body);
  assert.equal(retry.json().call_id, first.callId);
  assert.equal(retry.json().status, 'pending');
  const again = await call('POST', `${T()}/wallet-calls/${first.callId}/retry`);
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().code, 'wallet_call_not_failed');

  const asReserved = await call('POST', `${T()}/wallet-calls/${second.callId}/resolve`, { note: 'paid by hand', reserved: true });
  assert.deepEqual([asReserved.statusCode, asReserved.json().code], [400, 'bad_request'], asReserved.body);
  assert.match(asReserved.json().detail ?? asReserved.json().message ?? asReserved.body, /is a credit: only a reserve is resolved as reserved/);
  const resolve = await call('POST', `${T()}/wallet-calls/${second.callId.toUpperCase()}/resolve`, { note: 'paid by hand' });
  assert.equal(resolve.statusCode, 200, resolve.body);
  assert.equal(resolve.json().status, 'resolved');
  assert.equal(resolve.json().note, 'paid by hand');
  assert.equal((await call('POST', `${T()}/wallet-calls/${second.callId}/resolve`, {})).statusCode, 400);
});

test('every route: 401 without a token, 403 without the admin scope or for another tenant, 400 for a bad id', async () => {
  const upload = await seedClient(ctx, { scopes: ['upload'], tenantId: admin.tenant.tenant_id });
  const id = randomUUID();
  const routes: Array<[Method, (tenant: string, id: string) => string, unknown?]> = [
    ['GET', (t, b) => `/admin/tenants/${t}/bets/${b}/wallet-calls`],
    ['GET', (t) => `/admin/tenants/${t}/wallet-calls/failed`],
    ['POST', (t, c) => `/admin/tenants/${t}/wallet-calls/${c}/retry`],
    ['POST', (t, c) => `/admin/tenants/${t}/wallet-calls/${c}/resolve`, { note: 'x' }],
  ];
  const own = admin.tenant.tenant_id;
  for (const [method, url, body] of routes) {
    const name = `${method} ${url('{tenant_id}', '{id}')}`;
    assert.equal((await call(method, url(own, id), body, {})).statusCode, 401, name);
    assert.equal((await call(method, url(own, id), body, upload.auth)).statusCode, 403, name);
    assert.equal((await call(method, url(other.tenant.tenant_id, id), body)).statusCode, 403, `${name} of another tenant`);
    assert.equal((await call(method, url('nope', id), body)).statusCode, 400, `${name} bad tenant id`);
    if (url(own, 'x').includes('/x/')) {
      const bad = await call(method, url(own, '12345'), body);
      assert.equal(bad.statusCode, 400, `${name} bad id`);
      assert.equal(bad.json().code, 'validation_failed');
    }
  }
});
