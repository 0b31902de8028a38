// tenant set-auth and dev-jwks through the real bin/wagerline: the JSON they print, their one-line
// errors, and dev-jwks's tokens accepted by services.users.authenticate after set-auth.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { Services } from '../src/services.ts';
import { testServices } from './helpers/app.ts';
import { cliEnv, runCli, startCli } from './helpers/cli.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';

let db: TestDatabase;
let env: Record<string, string>;
let services: Services;

before(async () => {
  db = await freshDatabase();
  env = cliEnv(db.url);
  services = testServices(db, createSecretBox(randomBytes(32)));
});
after(async () => {
  await services.close();
  await db.drop();
});

async function ok(args: string[]) {
  const res = await runCli(args, env);
  assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
  assert.equal(res.stdout.trim().split('\n').length, 1, 'exactly one line of JSON on stdout');
  return res.json();
}

async function refused(args: string[], pattern: RegExp) {
  const res = await runCli(args, env);
  assert.notEqual(res.code, 0);
  assert.equal(res.stdout, '', 'nothing on stdout when a command fails');
  assert.match(res.stderr.split('\n')[0]!, pattern);
}

test('tenant set-auth: jwt and custom, and a one-line error for each mistake', async () => {
  const { tenant_id: id } = await ok(['tenant', 'create', '--name', 'Set Auth Bet']);
  const jwt = await ok(['tenant', 'set-auth', id, '--mode', 'jwt', '--jwks-url', 'https://idp.example.com/.well-known/jwks.json', '--client-id', 'web-app']);
  assert.deepEqual(Object.keys(jwt).sort(), ['client_id', 'jwks_url', 'mode', 'private_network', 'tenant_id', 'updated_at']);
  // A host name the platform gave without --private-network: it must resolve to public addresses.
  assert.deepEqual({ ...jwt, updated_at: 0 }, {
    tenant_id: id, mode: 'jwt', jwks_url: 'https://idp.example.com/.well-known/jwks.json', client_id: 'web-app', private_network: false, updated_at: 0,
  });
  const custom = await ok(['tenant', 'set-auth', id, '--mode', 'custom']);
  assert.deepEqual({ ...custom, updated_at: 0 }, { tenant_id: id, mode: 'custom', jwks_url: null, client_id: null, private_network: false, updated_at: 0 });

  await refused(['tenant', 'set-auth', 'acme', '--mode', 'custom'], /^wagerline: command-argument value 'acme' is invalid for argument 'tenant_id': must be a UUID/);
  await refused(['tenant', 'set-auth', randomUUID(), '--mode', 'custom'], /^wagerline: no tenant with id/);
  await refused(['tenant', 'set-auth', id, '--mode', 'jwt', '--client-id', 'web'], /needs --jwks-url/);
  await refused(['tenant', 'set-auth', id, '--mode', 'jwt', '--jwks-url', 'https://idp.example.com/jwks'], /needs --client-id/);
  await refused(['tenant', 'set-auth', id, '--mode', 'jwt', '--jwks-url', 'file:///etc/jwks.json', '--client-id', 'web'], /must use https:\/\//);
  await refused(['tenant', 'set-auth', id, '--mode', 'custom', '--jwks-url', 'https://idp.example.com/jwks'], /belong to --mode jwt/);
  await refused(['tenant', 'set-auth', id, '--mode', 'custom', '--client-id', 'web'], /belong to --mode jwt/);
  await refused(['tenant', 'set-auth', id, '--mode', 'saml'], /Allowed choices are jwt, custom/);
  await refused(['tenant', 'set-auth', id], /--mode/);
  const { rows } = await db.pool.query('SELECT mode FROM user_auth_configs WHERE tenant_id = $1', [id]);
  assert.deepEqual(rows, [{ mode: 'custom' }], 'refused commands wrote nothing');
});

test('tenant set-auth: a tenant whose currency has no hundredths cannot take bets; uploads in it still can', async () => {
  const { tenant_id: id } = await ok(['tenant', 'create', '--name', 'Yen Bet', '--currency', 'jpy', '--timezone', 'Asia/Tokyo']);
  await refused(['tenant', 'set-auth', id, '--mode', 'custom'], /^wagerline: the tenant's currency JPY has no hundredths: bets are taken and paid in hundredths .* \(uploads in JPY are not affected\)$/);
  const { rows } = await db.pool.query('SELECT 1 FROM user_auth_configs WHERE tenant_id = $1', [id]);
  assert.deepEqual(rows, [], 'nothing written');
  const { tenant_id: dinar } = await ok(['tenant', 'create', '--name', 'Dinar Bet', '--currency', 'KWD', '--timezone', 'Asia/Kuwait']);
  assert.equal((await ok(['tenant', 'set-auth', dinar, '--mode', 'custom'])).mode, 'custom', 'thousandths: hundredths are amounts of it');
});

test('dev-jwks: its JWKS and tokens are accepted after tenant set-auth; /token signs more', async () => {
  const { child, first } = await startCli(['dev-jwks', '--port', '0', '--users', '2', '--client-id', 'quick-start'], env);
  try {
    assert.deepEqual(Object.keys(first).sort(), ['client_id', 'jwks_url', 'kid', 'users']);
    assert.equal(first.client_id, 'quick-start');
    assert.match(first.jwks_url, /^http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json$/);
    assert.equal(first.users.length, 2);
    const jwks = (await (await fetch(first.jwks_url)).json()) as { keys: Array<Record<string, string>> };
    assert.deepEqual(jwks.keys.map((k) => [k.kty, k.use, k.alg, k.kid, typeof k.n, typeof k.e]), [['RSA', 'sig', 'RS256', first.kid, 'string', 'string']]);
    assert.equal(jwks.keys.some((k) => 'd' in k), false, 'no private member published');

    const { tenant_id: id } = await ok(['tenant', 'create', '--name', 'Dev Bet']);
    await ok(['tenant', 'set-auth', id, '--mode', 'jwt', '--jwks-url', first.jwks_url, '--client-id', first.client_id]);
    for (const { user_id: userId, token } of first.users) {
      const user = await services.users.authenticate({ authorization: `Bearer ${token}`, 'x-tenant-id': id });
      assert.ok(user.expiresInMs! > 3600_000 && user.expiresInMs! <= 3660_000, 'valid for the token\'s hour and its leeway');
      assert.deepEqual({ ...user, token: undefined, expiresInMs: undefined }, {
        tenantId: id, userId, mode: 'jwt', token: undefined, expiresInMs: undefined,
        metadata: { userId, brandName: 'Dev Bet', brandUserId: userId, data: '{}' }, tenantTimezoneUsable: true,
      });
    }
    const someone = randomUUID().toUpperCase();
    const tokenUrl = first.jwks_url.replace('/.well-known/jwks.json', '/token');
    const minted = (await (await fetch(`${tokenUrl}?user=${someone}`)).json()) as { user_id: string; token: string };
    assert.equal(minted.user_id, someone.toLowerCase());
    assert.equal((await services.users.authenticate({ authorization: `Bearer ${minted.token}`, 'x-tenant-id': id })).userId, someone.toLowerCase());
    assert.equal((await fetch(`${tokenUrl}?user=alice`)).status, 400);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, 'dev-jwks stops cleanly on SIGTERM');
  }
});

test('dev-jwks: bad arguments are one line on stderr', async () => {
  await refused(['dev-jwks', '--port', 'eighty'], /--port must be a whole number/);
  await refused(['dev-jwks', '--users', '-1'], /--users/);
});
