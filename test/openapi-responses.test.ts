// The OpenAPI document as an integrator's generated client reads it: every operation shows its
// success answer and the error statuses the route really gives, and the admin API's answers
// match the schemas it documents for them (checked on real answers of every admin route).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Errors } from 'typebox/schema';
import { withTransaction } from '../src/db/pool.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { CLIENT, credit } from './wallet-fixtures.ts';

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: object }> }> };
let ctx: TestContext;
let sandbox: WalletSandbox;
let doc: { paths: Record<string, Record<string, Operation>> };

before(async () => {
  ctx = await createTestApp();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  doc = (await ctx.app.inject({ url: '/openapi.json' })).json();
});
after(async () => {
  await sandbox.close();
  await ctx.close();
});

const statuses = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {});

test('every operation shows its success answer', () => {
  const without = Object.entries(doc.paths).flatMap(([path, operations]) => Object.entries(operations)
    .filter(([, operation]) => !Object.keys(operation.responses ?? {}).some((status) => status.startsWith('2')))
    .map(([method]) => `${method.toUpperCase()} ${path}`));
  assert.deepEqual(without, []);
});

test('the error statuses the routes give are documented', () => {
  assert.ok(statuses('/readyz', 'get').includes('503'), 'readyz: 503 while the database is out of reach or a migration is pending');
  for (const action of ['retry', 'resolve']) {
    assert.ok(statuses(`/admin/tenants/{tenant_id}/wallet-calls/{call_id}/${action}`, 'post').includes('409'), `${action}: 409 wallet_call_not_failed`);
  }
  assert.ok(statuses('/admin/tenants/{tenant_id}/timezone', 'put').includes('409'), 'timezone: 409 conflict on a zone the database knows');
  for (const path of ['/graphql', '/backoffice/query']) {
    for (const method of ['get', 'post']) assert.ok(statuses(path, method).includes('4XX'), `${method.toUpperCase()} ${path}: 400, 401, 403…`);
  }
});

/** The answer's status, and every way its body breaks the schema the document gives for that status. */
async function conforms(method: 'GET' | 'POST' | 'PUT', url: string, path: string, auth: Record<string, string>, payload?: object) {
  const res = await ctx.app.inject({ method, url, headers: auth, ...(payload && { payload }) });
  assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`);
  const schema = doc.paths[path]?.[method.toLowerCase()]?.responses?.['200']?.content?.['application/json']?.schema;
  assert.ok(schema, `${method} ${path}: no 200 schema`);
  const [ok, errors] = Errors(schema as never, res.json());
  assert.ok(ok, `${method} ${path}: ${JSON.stringify(errors.slice(0, 3))} in ${res.body.slice(0, 400)}`);
  return res.json();
}

test('every admin and platform route answers what its 200 schema says', async () => {
  const platform = await seedClient(ctx, { scopes: ['admin', 'platform'] });
  const admin = await seedClient(ctx, { scopes: ['admin'] });
  const tenantId = admin.tenant.tenant_id;
  const T = `/admin/tenants/${tenantId}`;
  const P = '/admin/tenants/{tenant_id}';
  const a = admin.auth;
  await conforms('PUT', `${T}/wallet`, `${P}/wallet`, platform.auth,
    { url: sandbox.url, auth: 'client_credentials', client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, signing_secret: 'x'.repeat(16) });
  await conforms('PUT', `${T}/auth`, `${P}/auth`, a, { mode: 'custom' });
  await conforms('PUT', `${T}/limits`, `${P}/limits`, a, { max_stake: '500', max_payout: null });
  const created = await conforms('POST', `${T}/clients`, `${P}/clients`, a, { scopes: ['upload', 'backoffice'], agencies: ['TAB'], name: 'feed' });
  await conforms('GET', T, P, a);
  await conforms('GET', `${T}/clients`, `${P}/clients`, a);
  await conforms('POST', `${T}/clients/${created.client_id}/rotate-secret`, `${P}/clients/{client_id}/rotate-secret`, a);

  // A call refused for good by the wallet: parked, then retried, parked again and resolved.
  const [queued] = await withTransaction(ctx.db.pool, async (tx) => [await ctx.services.wallet.enqueue(tx, { tenantId, ...credit(randomUUID()) })]);
  const park = async () => {
    sandbox.injectFaults([{ op: 'credit', kind: 'status', status: 422 }]);
    const worker = ctx.services.wallet.createWorker({ listen: false });
    await worker.drain();
    await worker.stop();
  };
  await park();
  const call = queued!.transactionId;
  const W = `${P}/wallet-calls`;
  await conforms('GET', `${T}/bets/${queued!.betId}/wallet-calls`, `${P}/bets/{bet_id}/wallet-calls`, a);
  assert.equal((await conforms('GET', `${T}/wallet-calls/failed`, `${W}/failed`, a)).count, 1);
  await conforms('POST', `${T}/wallet-calls/${call}/retry`, `${W}/{call_id}/retry`, a);
  await park();
  await conforms('POST', `${T}/wallet-calls/${call}/resolve`, `${W}/{call_id}/resolve`, a, { note: 'credited by hand' });

  // A tenant stored with a zone the database does not know (before creation checked it): set-zone's route.
  const { rows } = await ctx.db.pool.query<{ tenant_id: string }>(
    "INSERT INTO tenants (name, currency, timezone) VALUES ('Regina Bet', 'AUD', 'Canada/East-Saskatchewan') RETURNING tenant_id");
  await conforms('PUT', `/admin/tenants/${rows[0]!.tenant_id}/timezone`, `${P}/timezone`, platform.auth, { timezone: 'America/Regina' });

  const other = await conforms('POST', '/admin/tenants', '/admin/tenants', platform.auth, { name: 'Second Brand' });
  await conforms('GET', '/admin/tenants', '/admin/tenants', platform.auth);
  await conforms('PUT', `/admin/clients/${created.client_id}/grants`, '/admin/clients/{client_id}/grants', platform.auth, { tenants: [other.tenant_id] });
  await conforms('POST', '/admin/signing-keys/rotate', '/admin/signing-keys/rotate', platform.auth);
  await conforms('POST', `${T}/clients/${created.client_id}/revoke`, `${P}/clients/{client_id}/revoke`, a);
  await conforms('POST', `${T}/disable`, `${P}/disable`, a);
});
