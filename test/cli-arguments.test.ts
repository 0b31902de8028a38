// The CLI's arguments as docs/operations.md promises them: a value out of a command's range is a
// usage error (exit 2, nothing written), a value longer than the admin API takes is refused too,
// and an id is answered in the canonical form the admin API answers it in, whatever its case.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, seedClient, type TestContext } from './helpers/app.ts';
import { cliEnv, runCli } from './helpers/cli.ts';

let ctx: TestContext;
let admin: Awaited<ReturnType<typeof seedClient>>;
let env: Record<string, string>;

before(async () => {
  ctx = await createTestApp();
  admin = await seedClient(ctx, { scopes: ['admin'] });
  env = cliEnv(ctx.db.url);
});
after(() => ctx.close());

test('set-wallet --concurrency above what the service takes is a usage error naming the range, and nothing is stored', async () => {
  const res = await runCli(['tenant', 'set-wallet', admin.tenant.tenant_id, '--url', 'http://127.0.0.1:9/wallet', '--auth', 'api_key',
    '--api-key', 'key-0123', '--no-verify', '--concurrency', '5000'], env);
  assert.equal(res.code, 2, res.stderr);
  assert.equal(res.stdout, '');
  assert.match(res.stderr.split('\n')[0]!, /--concurrency.*must be a whole number from 1 to 1000/);
  const help = await runCli(['tenant', 'set-wallet', '--help'], env);
  assert.doesNotMatch(help.stdout, /10000|10,000/);
  assert.equal((await ctx.db.pool.query('SELECT 1 FROM wallet_configs')).rowCount, 0);
});

test('an id typed in capitals is answered in lower case by the CLI, as the API answers it', async () => {
  const tenantId = admin.tenant.tenant_id;
  const cli = await runCli(['tenant', 'set-limits', tenantId.toUpperCase(), '--max-stake', '500'], env);
  assert.equal(cli.code, 0, cli.stderr);
  const api = await ctx.app.inject({
    method: 'PUT', url: `/admin/tenants/${tenantId.toUpperCase()}/limits`, payload: { max_stake: '500' }, headers: admin.auth,
  });
  assert.equal(api.statusCode, 200, api.body);
  assert.equal(api.json().tenant_id, tenantId);
  assert.equal(cli.json().tenant_id, tenantId);
});

test('set-wallet: credentials and a URL longer than the admin API takes are refused by the CLI too, and nothing is stored', async () => {
  const tenantId = admin.tenant.tenant_id;
  const base = ['tenant', 'set-wallet', tenantId, '--no-verify'];
  const cases: Array<[string[], Record<string, unknown>, RegExp]> = [
    [['--url', 'http://127.0.0.1:9/w', '--auth', 'api_key', '--api-key', 'k'.repeat(501)],
      { url: 'http://127.0.0.1:9/w', auth: 'api_key', api_key: 'k'.repeat(501) }, /--api-key must be at most 500 characters/],
    [['--url', 'http://127.0.0.1:9/w', '--auth', 'client_credentials', '--client-id', 'c', '--client-secret', 's'.repeat(501)],
      { url: 'http://127.0.0.1:9/w', auth: 'client_credentials', client_id: 'c', client_secret: 's'.repeat(501) }, /--client-secret must be at most 500 characters/],
    [['--url', `http://127.0.0.1:9/${'p'.repeat(2000)}`, '--auth', 'api_key', '--api-key', 'k'],
      { url: `http://127.0.0.1:9/${'p'.repeat(2000)}`, auth: 'api_key', api_key: 'k' }, /--url must be at most 2000 characters/],
    [['--url', 'http://127.0.0.1:9/w', '--auth', 'api_key', '--api-key', 'k', '--api-key-header', `x-${'h'.repeat(100)}`],
      { url: 'http://127.0.0.1:9/w', auth: 'api_key', api_key: 'k', api_key_header: `x-${'h'.repeat(100)}` }, /--api-key-header must be at most 100 characters/],
  ];
  for (const [args, body, message] of cases) {
    const cli = await runCli([...base, ...args], env);
    assert.notEqual(cli.code, 0, `the CLI stored what the API refuses: ${String(message)}`);
    assert.match(cli.stderr.split('\n')[0]!, message);
    const api = await ctx.app.inject({ method: 'PUT', url: `/admin/tenants/${tenantId}/wallet`, payload: { ...body, verify: false }, headers: admin.auth });
    assert.equal(api.statusCode, 400, api.body);
  }
  assert.equal((await ctx.db.pool.query('SELECT 1 FROM wallet_configs')).rowCount, 0);
});
