// The wallet HTTP client against a tiny real HTTP server on 127.0.0.1: headers, signing, the
// shared token request, renewal before expiry (injected clock), the call bound.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createWalletHttp, type WalletEndpoint } from '../src/modules/wallet/wallet.client.ts';
import { testClock } from './helpers/app.ts';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let tokenRequests = 0;
let hang = false;
let server: http.Server;
let url: string;

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, body });
      if (req.url === '/w/auth/token') {
        tokenRequests++;
        // Answer slowly so concurrent callers overlap with one request in flight.
        setTimeout(() => res.end(JSON.stringify({ access_token: `t${tokenRequests}`, expires_in: 3600, token_type: 'bearer' })), 50);
        return;
      }
      if (hang) return; // never answers
      res.setHeader('content-type', 'application/json');
      res.end('{"success":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const body = '{"transactionId":"x","amount":1.00}';

test('client credentials: one shared token request, bearer on every call, renewed before expiry', async () => {
  const clock = testClock();
  const client = createWalletHttp({ timeoutMs: 2000, clock });
  const endpoint: WalletEndpoint = {
    tenantId: 't1', url, auth: { kind: 'client_credentials', clientId: 'cid', clientSecret: 'sec' },
    amountUnit: 'dollars', concurrency: 10, version: 'v1',
  };
  seen.length = 0;
  tokenRequests = 0;
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => client.send(endpoint, 'credit', body, `tx${i}`)));
  assert.ok(results.every((r) => r.length === 1 && r[0]!.verdict === 'success'));
  assert.equal(tokenRequests, 1, 'concurrent callers share one token request');
  const tokenCall = seen.find((s) => s.path === '/w/auth/token')!;
  assert.deepEqual(JSON.parse(tokenCall.body), { grant_type: 'client_credentials', client_id: 'cid', client_secret: 'sec' });
  const call = seen.find((s) => s.path === '/w/credit')!;
  assert.equal(call.headers.authorization, 'Bearer t1');
  assert.equal(call.headers['content-type'], 'application/json');
  assert.equal(call.body, body);
  assert.ok(seen.filter((s) => s.path === '/w/credit').every((s) => String(s.headers['idempotency-key']).startsWith('tx')));

  clock.advance(3600_000 - 61_000); // not yet within the renewal margin
  await client.send(endpoint, 'credit', body, 'a');
  assert.equal(tokenRequests, 1);
  clock.advance(2_000); // inside the last minute: renewed before the wallet would refuse it
  await client.send(endpoint, 'credit', body, 'b');
  assert.equal(tokenRequests, 2);
  assert.equal(seen.at(-1)!.headers.authorization, 'Bearer t2');
  await client.close();
});

test('api key in the configured header; signing headers verify with HMAC-SHA256 over "timestamp.body"', async () => {
  const clock = testClock(new Date('2026-03-01T10:00:00Z'));
  const client = createWalletHttp({ timeoutMs: 2000, clock });
  seen.length = 0;
  const endpoint: WalletEndpoint = {
    tenantId: 't2', url, auth: { kind: 'api_key', apiKey: 'k-123', header: 'x-wallet-key' },
    signingSecret: 'a-signing-secret-of-length', amountUnit: 'dollars', concurrency: 10, version: 'v1',
  };
  const [attempt] = await client.send(endpoint, 'debit', body, 'tx');
  assert.equal(attempt!.verdict, 'success');
  const s = seen[0]!;
  assert.equal(s.path, '/w/debit');
  assert.equal(s.headers['x-wallet-key'], 'k-123');
  assert.equal(s.headers.authorization, undefined);
  const timestamp = s.headers['x-wagerline-timestamp'] as string;
  assert.equal(timestamp, String(Date.parse('2026-03-01T10:00:00Z') / 1000));
  const expected = createHmac('sha256', 'a-signing-secret-of-length').update(`${timestamp}.${s.body}`).digest('hex');
  assert.equal(s.headers['x-wagerline-signature'], `v1=${expected}`);
  await client.close();
});

test('a call with no answer is cut at the configured bound and is a retryable error', async () => {
  const client = createWalletHttp({ timeoutMs: 300 });
  const endpoint: WalletEndpoint = {
    tenantId: 't3', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 1, version: 'v1',
  };
  hang = true;
  try {
    const [attempt] = await client.send(endpoint, 'credit', body, 'tx');
    assert.equal(attempt!.verdict, 'retry');
    assert.equal(attempt!.httpStatus, null);
    assert.match(attempt!.error!, /timeout: no complete response within 300 ms/);
  } finally {
    hang = false;
    await client.close();
  }
});
