// set-wallet checks what it is given before saving: with client credentials the wallet's
// /auth/token must issue a token; with an API key an empty refundBet must be refused as a wallet
// refuses a body (4xx in the error shape), not as a wallet refuses a key (401/403). Nothing is saved
// on a refusal; --no-verify saves unchecked.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import type { Services } from '../src/services.ts';
import { verifyWallet } from '../src/modules/wallet/config/verify-wallet.ts';
import { startWalletSandbox } from '../src/tools/wallet-sandbox/index.ts';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import { testServices } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { freePort } from './helpers/net.ts';
import { CLIENT } from './wallet-fixtures.ts';

const key = randomBytes(32);
const API_KEY = 'operator-api-key-0123456789';
const SIGNING = 'sign-me-please-0123';
let db: TestDatabase;
let services: Services;
let tokens: WalletSandbox;
let keyed: WalletSandbox;
let notAWallet: http.Server;
let notAWalletUrl: string;
let tenantId: string;

before(async () => {
  db = await freshDatabase();
  services = testServices(db, createSecretBox(key), { settings: { WAGERLINE_WALLET_TIMEOUT_MS: 2000 } });
  tokens = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  keyed = await startWalletSandbox({ auth: { kind: 'api_key', apiKey: API_KEY, header: 'x-operator-key' }, signingSecret: SIGNING });
  notAWallet = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>'));
  await new Promise<void>((resolve) => notAWallet.listen(0, '127.0.0.1', resolve));
  notAWalletUrl = `http://127.0.0.1:${(notAWallet.address() as AddressInfo).port}`;
  tenantId = (await services.tenants.createTenant({ name: 'Verify Bet' })).tenant_id;
});
after(async () => {
  await tokens.close();
  await keyed.close();
  await new Promise((resolve) => notAWallet.close(resolve));
  await services.close();
  await db.drop();
});

const saved = async () => (await db.pool.query('SELECT url, auth_kind FROM wallet_configs WHERE tenant_id = $1', [tenantId])).rows;
const credentials = (url: string, clientSecret = CLIENT.clientSecret) =>
  ({ tenantId, url, auth: 'client_credentials' as const, clientId: CLIENT.clientId, clientSecret, verify: true });
const apiKey = (url: string, key = API_KEY, signingSecret: string | null = SIGNING) =>
  ({ tenantId, url, auth: 'api_key' as const, apiKey: key, apiKeyHeader: 'X-Operator-Key', verify: true, ...(signingSecret && { signingSecret }) });

test('refused before saving: unreachable, refused credentials, not a wallet — each says why', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  const cases: Array<[Parameters<Services['wallet']['setWallet']>[0], RegExp]> = [
    [credentials(dead), /^wallet not saved: the wallet is unreachable: POST http:\/\/127\.0\.0\.1:\d+\/auth\/token: connection refused \(ECONNREFUSED\) \(--no-verify, or "verify": false over HTTP, saves it without this check\)$/],
    [credentials(tokens.url, 'wrong-secret-000'), /^wallet not saved: the wallet refused the client credentials: POST http:\/\/127\.0\.0\.1:\d+\/auth\/token answered HTTP 401 /],
    [credentials(notAWalletUrl), /^wallet not saved: no wallet token endpoint at http:\/\/127\.0\.0\.1:\d+\/auth\/token: expected a 2xx with an access_token \(docs\/wallet\.md\), got HTTP 404 with a body that is not a wallet's error \(\d+ bytes, not shown\)/],
    [apiKey(keyed.url, 'not-the-key'), /^wallet not saved: the wallet refused the API key \(header x-operator-key, signed\): POST http:\/\/127\.0\.0\.1:\d+\/refundBet answered HTTP 401 /],
    [apiKey(keyed.url, API_KEY, null), /refused the API key \(header x-operator-key, unsigned\): .*INVALID_SIGNATURE/], // this wallet requires signed calls
    [apiKey(notAWalletUrl), /^wallet not saved: no wallet at http:\/\/127\.0\.0\.1:\d+: an empty refundBet should be refused with a 4xx \{message, code, statusCode\} \(docs\/wallet\.md\), got HTTP 404/],
    [apiKey(dead), /the wallet is unreachable: POST http:\/\/127\.0\.0\.1:\d+\/refundBet: connection refused/],
  ];
  for (const [input, message] of cases) {
    await assert.rejects(services.wallet.setWallet(input), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'bad_request');
      assert.match(error.message, message);
      return true;
    });
  }
  assert.deepEqual(await saved(), []);
});

test('accepted and saved when the wallet takes the credentials; the answer says what was checked', async () => {
  const byToken = await services.wallet.setWallet(credentials(tokens.url));
  assert.equal(byToken.verified, `POST ${tokens.url}/auth/token issued a token`);
  const byKey = await services.wallet.setWallet(apiKey(keyed.url));
  assert.match(byKey.verified!, /^POST http:\/\/127\.0\.0\.1:\d+\/refundBet took the key and refused an empty body \(400 [A-Z_]+\)$/);
  assert.deepEqual(await saved(), [{ url: keyed.url, auth_kind: 'api_key' }]);
  assert.equal((await keyed.effects()).size, 0); // the check moved nothing
});

test('the CLI checks by default, refuses in one line with exit 1, and saves unchecked with --no-verify', async () => {
  const env = { DATABASE_URL: db.url, WAGERLINE_SECRET_KEY: key.toString('base64'), LOG_LEVEL: 'silent' };
  const dead = `http://127.0.0.1:${await freePort()}`;
  const args = ['tenant', 'set-wallet', tenantId, '--url', dead, '--auth', 'client_credentials', '--client-id', CLIENT.clientId, '--client-secret', CLIENT.clientSecret];
  const refused = await runCli(args, env);
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /^wagerline: wallet not saved: the wallet is unreachable: .*connection refused.*--no-verify.*\n$/);
  const unchecked = await runCli([...args, '--no-verify'], env);
  assert.equal(unchecked.code, 0, unchecked.stderr);
  assert.deepEqual([unchecked.json().url, unchecked.json().verified], [dead, null]);
});

test('the check never reads back what a service that is not a wallet answers (the URL is the caller\'s)', async () => {
  const internal = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('db_password=hunter2'));
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
  try {
    for (const input of [credentials(url), apiKey(url)]) {
      await assert.rejects(services.wallet.setWallet(input), (error: Error) => {
        assert.match(error.message, /got HTTP 200 with a body that is not a wallet's error \(19 bytes, not shown\)/);
        assert.doesNotMatch(error.message, /hunter2/);
        return true;
      });
    }
  } finally {
    await new Promise((resolve) => internal.close(resolve));
  }
});

test('a URL carrying a user name or password is refused without echoing it, and nothing is saved', async () => {
  await assert.rejects(services.wallet.setWallet({ ...credentials(tokens.url.replace('http://', 'http://ops:s3cret-pw@')), verify: false }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'bad_request');
    assert.match(error.message, /--url must not carry a user name or password/);
    assert.doesNotMatch(error.message, /s3cret-pw/);
    return true;
  });
  assert.deepEqual((await saved()).filter((r) => r.url.includes('s3cret')), []);
});

test('a value that is not a URL is quoted without its user info or query values', async () => {
  await assert.rejects(services.wallet.setWallet({ ...credentials('https://ops:s3cret-pw@wallet example.com/api?api_key=k3y'), verify: false }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'bad_request');
    assert.equal(error.message, '--url "https://[Redacted]@wallet example.com/api?api_key=[Redacted]" is not a URL (expected e.g. https://wallet.example.com/api)');
    return true;
  });
});

// fetch() refuses the WHATWG "bad ports"; the delivery (an undici Pool) reaches a wallet there, so
// the check must too. Several candidates: another process (or test file) may hold one.
const BAD_PORTS = [10080, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 5060, 5061, 4190, 4045, 3659, 2049];

test('a wallet on a port fetch() refuses (10080, 6000, 6665-6669, ...) is checked and saved', async (t) => {
  let sandbox: WalletSandbox | undefined;
  for (const port of BAD_PORTS) {
    sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT }, port }).catch(() => undefined);
    if (sandbox) break;
  }
  if (!sandbox) return t.skip(`none of ports ${BAD_PORTS.join(', ')} is free`);
  try {
    const set = await services.wallet.setWallet(credentials(sandbox.url));
    assert.equal(set.verified, `POST ${sandbox.url}/auth/token issued a token`);
    assert.deepEqual(await saved(), [{ url: sandbox.url, auth_kind: 'client_credentials' }]);
  } finally {
    await sandbox.close();
  }
});

test('a wallet that does not answer, or stops half-way through its answer, is refused within the timeout', async () => {
  const stalled = http.createServer((req, res) => {
    // /auth/token: headers, then part of a body that never ends; /refundBet: nothing at all.
    if (req.url === '/auth/token') res.writeHead(200, { 'content-type': 'application/json' }).write('{"access_');
  });
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
  try {
    for (const auth of [{ kind: 'client_credentials', ...CLIENT } as const, { kind: 'api_key', apiKey: API_KEY, header: 'x-operator-key' } as const]) {
      const started = Date.now();
      await assert.rejects(verifyWallet({ url, auth }, 300), { message: /^wallet not saved: the wallet is unreachable: no answer from POST http:\/\/127\.0\.0\.1:\d+\/(auth\/token|refundBet) within 300 ms / });
      assert.ok(Date.now() - started < 2000, `${auth.kind}: took ${Date.now() - started} ms`);
    }
  } finally {
    stalled.closeAllConnections();
    await new Promise((resolve) => stalled.close(resolve));
  }
});
