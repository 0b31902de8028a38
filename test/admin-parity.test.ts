// The CLI and the admin API given the same edge inputs: the same verdict and the same stored
// result. The CLI reaches the services directly, so a rule that lived only in a route's schema
// would let the CLI store what the API refuses; each test feeds both paths and reads the database.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction } from '../src/db/pool.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { CLIENT, credit } from './wallet-fixtures.ts';

let ctx: TestContext;
let sandbox: WalletSandbox;
let admin: Awaited<ReturnType<typeof seedClient>>;
let platform: Awaited<ReturnType<typeof seedClient>>;
let env: Record<string, string>;

before(async () => {
  ctx = await createTestApp();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  admin = await seedClient(ctx, { scopes: ['admin'] });
  platform = await seedClient(ctx, { scopes: ['admin', 'platform'] });
  env = cliEnv(ctx.db.url);
  await ctx.services.wallet.setWallet({ tenantId: admin.tenant.tenant_id, url: sandbox.url, auth: 'client_credentials', ...CLIENT, verify: false });
});
after(async () => {
  await sandbox.close();
  await ctx.close();
});

const T = () => `/admin/tenants/${admin.tenant.tenant_id}`;
const send = (method: 'POST' | 'PUT', url: string, payload: string, auth = admin.auth) =>
  ctx.app.inject({ method, url, payload, headers: { ...auth, 'content-type': 'application/json' } });

/** A credit of a new bet of the admin's tenant, refused for good by the wallet: parked as failed. */
async function parkedCall(): Promise<string> {
  const { wallet } = ctx.services;
  const [queued] = await withTransaction(ctx.db.pool, async (tx) => [await wallet.enqueue(tx, { tenantId: admin.tenant.tenant_id, ...credit(randomUUID()) })]);
  sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 422 }]);
  const worker = wallet.createWorker({ listen: false });
  await worker.drain();
  await worker.stop();
  return queued!.transactionId;
}

const callRow = async (callId: string) =>
  (await ctx.db.pool.query<{ status: string; note: string | null }>('SELECT status, note FROM wallet_calls WHERE transaction_id = $1', [callId])).rows[0]!;

test('wallet resolve: a note that is empty, blank, over 500 characters or not storable is refused by both, and the call stays parked', async () => {
  const callId = await parkedCall();
  for (const note of ['', '   ', 'x'.repeat(501)]) {
    const cli = await runCli(['wallet', 'resolve', callId, '--note', note], env);
    assert.notEqual(cli.code, 0, `CLI resolved with note of ${note.length} characters`);
    assert.equal(cli.stdout, '');
    assert.match(cli.stderr.split('\n')[0]!, /^wagerline: note must be a text of 1 to 500 characters/);
    const api = await send('POST', `${T()}/wallet-calls/${callId}/resolve`, JSON.stringify({ note }));
    assert.equal(api.statusCode, 400, `API resolved with note of ${note.length} characters`);
  }
  // Half of a surrogate pair: PostgreSQL would keep U+FFFD instead of what was sent.
  const half = await send('POST', `${T()}/wallet-calls/${callId}/resolve`, '{"note": "credited \\ud800 by hand"}');
  assert.deepEqual([half.statusCode, half.json().code], [400, 'validation_failed']);
  assert.deepEqual(await callRow(callId), { status: 'failed', note: null });

  const done = await runCli(['wallet', 'resolve', callId, '--note', '  credited by hand  '], env);
  assert.equal(done.code, 0, done.stderr);
  assert.deepEqual(await callRow(callId), { status: 'resolved', note: 'credited by hand' });
});

const clientCount = async () => Number((await ctx.db.pool.query('SELECT count(*) FROM operator_clients')).rows[0].count);

test('client create: a name over 200 characters is refused by the CLI as by the API, and no client is stored', async () => {
  const before = await clientCount();
  const long = 'n'.repeat(201);
  const cli = await runCli(['client', 'create', '--tenant', admin.tenant.tenant_id, '--scopes', 'upload', '--agencies', 'TAB', '--name', long], env);
  assert.notEqual(cli.code, 0, 'the CLI stored a client name the API refuses');
  assert.match(cli.stderr.split('\n')[0]!, /name must be at most 200 characters/);
  const api = await send('POST', `${T()}/clients`, JSON.stringify({ scopes: ['upload'], agencies: ['TAB'], name: long }));
  assert.equal(api.statusCode, 400);
  assert.equal(await clientCount(), before);
});

test('client create: more than 100 agencies or venues is refused by the CLI as by the API, and no client is stored', async () => {
  const before = await clientCount();
  const many = Array.from({ length: 101 }, (_, i) => `AG${i}`);
  const cli = await runCli(['client', 'create', '--tenant', admin.tenant.tenant_id, '--scopes', 'upload', '--agencies', many.join(',')], env);
  assert.notEqual(cli.code, 0, 'the CLI stored a client the API refuses');
  assert.match(cli.stderr.split('\n')[0]!, /at most 100 agencies/);
  const api = await send('POST', `${T()}/clients`, JSON.stringify({ scopes: ['upload'], agencies: many }));
  assert.equal(api.statusCode, 400);
  const venues = Array.from({ length: 101 }, (_, i) => `VIC:Track ${i}`).join(',');
  const tracks = await runCli(['client', 'create', '--tenant', admin.tenant.tenant_id, '--scopes', 'report', '--venues', venues], env);
  assert.notEqual(tracks.code, 0, 'the CLI stored a track owner with more venues than the API takes');
  assert.match(tracks.stderr.split('\n')[0]!, /at most 100 venues/);
  assert.equal(await clientCount(), before);
});

test('names are counted in characters, as the API\'s schema counts them: 150 emoji are a name of 150 characters', async () => {
  const name = '🏇'.repeat(150);
  const tenant = await send('POST', '/admin/tenants', JSON.stringify({ name }), platform.auth);
  assert.equal(tenant.statusCode, 200, tenant.body);
  assert.equal(tenant.json().name, name);
  const cli = await runCli(['client', 'create', '--tenant', admin.tenant.tenant_id, '--scopes', 'upload', '--agencies', 'TAB', '--name', name], env);
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(cli.json().name, name);
});

test('race result: a dividend entry with a key besides runners and dividend is refused by the CLI as by the API, and nothing is recorded', async () => {
  const M = 880123;
  const catalog = await seedClient(ctx, { scopes: ['catalog'] });
  await ctx.services.catalogue.importCatalog({
    meeting_id: M, date: new Date().toISOString().slice(0, 10), venue: 'Sandown', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'exacta'],
      runners: [1, 2, 3].map((n) => ({ number: n, name: `R${n}`, win: 2 + n })) }],
  });
  await ctx.services.catalogue.setStatus(M, 1, 'closed');
  const dividends = { exacta: [{ runners: [1, 2], dividend: 30, runner: [2, 1] }] };
  const cli = await runCli(['race', 'result', String(M), '1', '--placings', '[[1],[2],[3]]', '--interim', '--dividends', JSON.stringify(dividends)], env);
  assert.notEqual(cli.code, 0, 'the CLI recorded a dividend the API refuses');
  assert.match(cli.stderr.split('\n')[0]!, /dividends\.exacta\[0\]/);
  const api = await send('POST', `/catalog/meetings/${M}/races/1/result`, JSON.stringify({ placings: [[1], [2], [3]], interim: true, dividends }), catalog.auth);
  assert.equal(api.statusCode, 400, api.body);
  assert.equal(await ctx.services.catalogue.result(M, 1), null);
});
