// What the wallet HTTP client reads of an answer: a wallet's answer is a few hundred bytes (spec
// 2.6), so an answer far larger — a wallet streaming a file, a misrouted proxy — must not be read
// whole into memory: with hundreds of calls in flight per wallet, it could exhaust the process
// that delivers every tenant's calls.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { verifyWallet } from '../src/modules/wallet/config/verify-wallet.ts';
import { createWalletHttp, MAX_RESPONSE_BYTES, type WalletEndpoint } from '../src/modules/wallet/delivery/http-client.ts';

let server: http.Server;
let url: string;
/** Bytes the server managed to write for the last endless answer before the client hung up. */
let written = 0;

before(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/w/declared') {
        // Announces a body far over the limit: nothing of it needs reading.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * MAX_RESPONSE_BYTES) });
        res.write('{"success":true,"pad":"');
        return;
      }
      // An endless answer, as fast as the client takes it.
      written = 0;
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.write('{"success":true,"pad":"');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const endpoint = (): WalletEndpoint => ({
  tenantId: 'big', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 1,
  privateNetwork: true, version: 'v1',
});

test('an endless answer is cut once it passes the limit, long before the bound: an unknown outcome, retried', async () => {
  const client = createWalletHttp({ timeoutMs: 3000 });
  try {
    const t0 = Date.now();
    const [attempt] = await client.send(endpoint(), 'settleBet', '{}', 'tx-endless');
    const took = Date.now() - t0;
    assert.equal(attempt!.verdict, 'retry');
    assert.match(attempt!.error!, /answer over \d+ bytes/);
    assert.ok(took < 1500, `read for ${took} ms: the answer was read until the bound`);
    assert.ok(written < 64 * MAX_RESPONSE_BYTES, `the server wrote ${written} bytes before the client hung up`);
  } finally {
    await client.close();
  }
});

test('an answer whose declared length is over the limit is refused without reading it', async () => {
  const client = createWalletHttp({ timeoutMs: 3000 });
  try {
    const t0 = Date.now();
    const [attempt] = await client.send(endpoint(), 'declared', '{}', 'tx-declared');
    assert.equal(attempt!.verdict, 'retry');
    assert.equal(attempt!.httpStatus, null);
    assert.match(attempt!.error!, /answer over \d+ bytes/);
    assert.ok(Date.now() - t0 < 1500, 'not left to the bound');
  } finally {
    await client.close();
  }
});

// The check of set-wallet reads the answer of a URL a tenant's admin gives: the same limit keeps
// that URL from filling the API server's memory.
test('the check of a wallet being saved stops reading an endless answer at the limit', async () => {
  const t0 = Date.now();
  await assert.rejects(verifyWallet({ url: `${url}endless`, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' } }, 3000),
    { message: /^wallet not saved: the wallet is unreachable: POST .*: answer over \d+ bytes/ });
  assert.ok(Date.now() - t0 < 1500, `read for ${Date.now() - t0} ms: the answer was read until the bound`);
});
