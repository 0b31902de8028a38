// The wallet HTTP client against a tiny real HTTP server on 127.0.0.1: headers, signing, the
// shared token request, renewal before expiry (injected clock), the call bound (to the last
// byte), connection reuse, and abandoning a call whose lease is lost.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createWalletHttp, type WalletEndpoint } from '../src/modules/wallet/delivery/http-client.ts';
import { testClock } from './helpers/app.ts';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let tokenRequests = 0;
let hang = false;
let sockets = 0;
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
      if (req.url === '/w/stall') {
        // Headers and half a body at once, the rest never: only a bound on the last byte ends it.
        res.writeHead(200, { 'content-type': 'application/json' }).write('{"success":');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end('{"success":true}');
    });
  });
  server.on('connection', () => sockets++);
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
    amountUnit: 'dollars', concurrency: 10, privateNetwork: true, version: 'v1',
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
    signingSecret: 'a-signing-secret-of-length', amountUnit: 'dollars', concurrency: 10, privateNetwork: true, version: 'v1',
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
    tenantId: 't3', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 1, privateNetwork: true, version: 'v1',
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

test('the bound runs to the last byte: headers that arrive in time do not end it', async () => {
  const client = createWalletHttp({ timeoutMs: 300 });
  const endpoint: WalletEndpoint = {
    tenantId: 't4', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 1, privateNetwork: true, version: 'v1',
  };
  try {
    const [attempt] = await client.send(endpoint, 'stall', body, 'tx');
    assert.equal(attempt!.verdict, 'retry');
    assert.equal(attempt!.httpStatus, null, 'a status line without its body is no answer');
    assert.match(attempt!.error!, /timeout: no complete response within 300 ms/);
  } finally {
    await client.close();
  }
});

test('one keep-alive connection pool per wallet origin: connections are reused, not opened per call', async () => {
  const client = createWalletHttp({ timeoutMs: 2000 });
  const endpoint: WalletEndpoint = {
    tenantId: 't5', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 1, privateNetwork: true, version: 'v1',
  };
  const before = sockets;
  // undici may dispatch the next request a moment before the previous socket is back in the
  // pool, so one sequential caller can use two sockets in turn — but never one per call.
  for (let i = 0; i < 20; i++) assert.equal((await client.send(endpoint, 'credit', body, `ka${i}`))[0]!.verdict, 'success');
  assert.ok(sockets - before <= 2, `20 sequential calls opened ${sockets - before} connections`);
  await Promise.all(Array.from({ length: 5 }, (_, i) => client.send(endpoint, 'credit', body, `burst${i}`)));
  const afterBurst = sockets;
  for (let i = 0; i < 20; i++) await client.send(endpoint, 'credit', body, `again${i}`);
  assert.equal(sockets, afterBurst, 'the pooled connections are reused afterwards');
  // Another wallet origin gets a pool of its own.
  let otherSockets = 0;
  const otherServer = http.createServer((_req, res) => res.end('{"success":true}')).on('connection', () => otherSockets++);
  await new Promise<void>((resolve) => otherServer.listen(0, '127.0.0.1', resolve));
  const other = { ...endpoint, url: `http://127.0.0.1:${(otherServer.address() as AddressInfo).port}/` };
  assert.equal((await client.send(other, 'credit', body, 'other-origin'))[0]!.verdict, 'success');
  assert.deepEqual([sockets, otherSockets], [afterBurst, 1]);
  await client.close();
  otherServer.close();
});

test('a stop signal abandons a call in flight before the bound, and one not yet sent is not sent', async () => {
  const client = createWalletHttp({ timeoutMs: 5000 });
  const endpoint: WalletEndpoint = {
    tenantId: 't6', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 1, privateNetwork: true, version: 'v1',
  };
  hang = true;
  try {
    const stop = new AbortController();
    const pending = client.send(endpoint, 'credit', body, 'stop-1', stop.signal);
    while (!seen.some((s) => s.headers['idempotency-key'] === 'stop-1')) await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort('lease lost');
    const [attempt] = await pending;
    assert.equal(attempt!.verdict, 'retry');
    assert.match(attempt!.error!, /^abandoned: lease lost/);
    const count = seen.length;
    const [never] = await client.send(endpoint, 'credit', body, 'stop-2', stop.signal);
    assert.match(never!.error!, /^not sent: lease lost/);
    assert.equal(seen.length, count);
  } finally {
    hang = false;
    await client.close();
  }
});
