// The command-line contract, through the real bin/wagerline: one JSON object on stdout, errors
// as one line on stderr with a non-zero exit, --help everywhere, and serve answering tokens.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { cliDataDir, runCli, startCli } from '../helpers/cli.ts';

let db: TestDatabase;
let env: Record<string, string>;

before(async () => {
  db = await freshDatabase();
  env = {
    DATABASE_URL: db.url,
    WAGERLINE_SECRET_KEY: randomBytes(32).toString('base64'),
    WAGERLINE_DATA_DIR: cliDataDir(),
    LOG_LEVEL: 'info',
  };
});
after(() => db.drop());

async function ok(args: string[]) {
  const res = await runCli(args, env);
  assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  assert.equal(res.stdout.trim().split('\n').length, 1, 'exactly one line of JSON on stdout');
  return res.json();
}

async function refused(args: string[], pattern: RegExp, extraEnv: Record<string, string> = {}) {
  const res = await runCli(args, { ...env, ...extraEnv });
  assert.notEqual(res.code, 0);
  assert.equal(res.stdout, '', 'nothing on stdout when a command fails');
  assert.match(res.stderr, pattern);
  return res;
}

test('tenant, clients, keys: the documented commands and their JSON', async () => {
  assert.deepEqual(await ok(['migrate']), { applied: [] });
  const tenant = await ok(['tenant', 'create', '--name', 'Acme Bet', '--currency', 'NZD', '--timezone', 'Pacific/Auckland']);
  assert.match(tenant.tenant_id, /^[0-9a-f-]{36}$/);
  assert.deepEqual({ ...tenant, tenant_id: undefined }, { tenant_id: undefined, name: 'Acme Bet', currency: 'NZD', timezone: 'Pacific/Auckland' });

  const client = await ok(['client', 'create', '--tenant', tenant.tenant_id, '--scopes', 'upload,report', '--agencies', 'TAB,xbet', '--jurisdictions', 'NSW,VIC']);
  assert.deepEqual(client.scopes, ['upload', 'report']);
  assert.deepEqual(client.agencies, ['TAB', 'XBET']);
  assert.deepEqual(client.jurisdictions, ['NSW', 'VIC']);
  assert.ok(Buffer.from(client.client_secret, 'base64url').length >= 32);

  const listed = await ok(['client', 'list', '--tenant', tenant.tenant_id]);
  assert.equal(listed.clients.length, 1);
  assert.equal(listed.clients[0].client_id, client.client_id);
  assert.equal(JSON.stringify(listed).includes(client.client_secret), false);
  assert.equal('secret_hash' in listed.clients[0], false);

  const rotated = await ok(['client', 'rotate-secret', client.client_id]);
  assert.equal(rotated.client_id, client.client_id);
  assert.notEqual(rotated.client_secret, client.client_secret);
  assert.deepEqual(await ok(['client', 'revoke', client.client_id]), { client_id: client.client_id, status: 'revoked' });
  assert.match((await ok(['keys', 'rotate'])).kid, /^[0-9a-f-]{36}$/);
});

test('bad arguments: one line on stderr, non-zero exit, nothing written', async () => {
  await refused(['tenant', 'create', '--name', 'X', '--currency', 'A1'], /currency "A1" is not an active ISO 4217 currency code/);
  await refused(['tenant', 'create', '--name', 'X', '--currency', 'XYZ'], /currency "XYZ" is not an active ISO 4217 currency code/);
  await refused(['tenant', 'create', '--name', 'X', '--currency', 'AUDD'], /currency "AUDD" is not an active ISO 4217 currency code/);
  await refused(['tenant', 'create', '--name', 'X', '--timezone', 'Mars/Base'], /not an IANA time zone/);
  await refused(['client', 'create', '--scopes', 'upload'], /--tenant/);
  await refused(['client', 'create', '--tenant', 'not-a-uuid', '--scopes', 'upload'], /--tenant.*must be a UUID/);
  const tenant = await ok(['tenant', 'create', '--name', 'Y']);
  await refused(['client', 'create', '--tenant', tenant.tenant_id, '--scopes', 'upload,superuser'], /scope "superuser" is not one of upload, report, backoffice, catalog, admin/);
  await refused(['client', 'revoke', 'wl_nobody'], /no client with id "wl_nobody"/);
  const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM operator_clients WHERE tenant_id = $1', [tenant.tenant_id]);
  assert.equal(rows[0].n, 0);
  await refused(['tenant', 'frobnicate'], /unknown command/);
});

test('a wrong setting stops the process with one line naming the variable', async () => {
  const res = await refused(['migrate'], /^wagerline: PORT: must be a whole number, got "eighty"\n\(run with --help for usage\)\n$/, { PORT: 'eighty' });
  assert.equal(res.code, 2);
  await refused(['migrate'], /DATABASE_URL: must use postgres:\/\//, { DATABASE_URL: 'mysql://localhost/x' });
});

test('--help works on every command', async () => {
  const commands = [[], ['serve'], ['migrate'], ['keys', 'rotate'], ['tenant', 'create'], ['client', 'create'], ['client', 'list'], ['client', 'rotate-secret'], ['client', 'revoke']];
  for (const words of commands) {
    const res = await runCli([...words, '--help'], env);
    assert.equal(res.code, 0, words.join(' '));
    assert.match(res.stdout, /Usage: wagerline/);
  }
});

test('serve: answers tokens for a CLI-created client, logs no secrets, stops on SIGTERM', async () => {
  const tenant = await ok(['tenant', 'create', '--name', 'Served']);
  const client = await ok(['client', 'create', '--tenant', tenant.tenant_id, '--scopes', 'upload', '--agencies', 'TAB']);
  const server = await startCli(['serve'], { ...env, PORT: '0' });
  try {
    assert.match(server.first.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const basic = Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64');
    const res = await fetch(`${server.first.url}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${client.client_id}`,
    });
    assert.equal(res.status, 200);
    const token = (await res.json()).access_token as string;
    const ready = await fetch(`${server.first.url}/readyz`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ready.status, 200);
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const logs = server.stderr();
    assert.match(logs, /"msg":"request completed"/);
    assert.equal(logs.includes(client.client_secret), false, 'client secret in the logs');
    assert.equal(logs.includes(token), false, 'access token in the logs');
    assert.equal(logs.includes(basic), false, 'Basic credentials in the logs');
  } finally {
    server.child.kill('SIGKILL');
  }
});
