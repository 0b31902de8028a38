// The 10-second bound of a wallet call (spec 8) counts from the ask, the time spent waiting for a
// free connection of the origin's pool included. A pool of one or two connections stands in for
// production's 1,024, against real sockets on 127.0.0.1: a wallet that holds every request
// without answering, and one whose host stops accepting connections (its accept queue full, so
// every new connection hangs until the connect timeout).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { createWalletHttp, type Attempt, type WalletEndpoint } from '../src/modules/wallet/delivery/http-client.ts';

const TIMEOUT = 300;
/** Timers and a loaded test machine: an answer this late after the bound is still "at" it. */
const SLACK = 150;
const body = '{"transactionId":"x","amount":1.00}';
const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const endpointAt = (url: string): WalletEndpoint => ({
  tenantId: 'tq', url, auth: { kind: 'api_key', apiKey: 'k', header: 'x-api-key' }, amountUnit: 'dollars', concurrency: 10,
  privateNetwork: true, version: 'v1',
});

/** Sends each call at once; resolves with each one's attempt and how long its caller waited. */
function sendAll(client: ReturnType<typeof createWalletHttp>, url: string, ids: string[]): Promise<{ id: string; attempt: Attempt; ms: number }[]> {
  return Promise.all(ids.map(async (id) => {
    const t0 = performance.now();
    const [attempt] = await client.send(endpointAt(url), 'credit', body, id);
    return { id, attempt: attempt!, ms: Math.round(performance.now() - t0) };
  }));
}

function assertAnsweredAtBound(results: { id: string; attempt: Attempt; ms: number }[]): void {
  const late = results.filter((r) => r.attempt.verdict !== 'retry' || r.ms > TIMEOUT + SLACK);
  assert.deepEqual(late.map(({ id, ms }) => `${id} after ${ms} ms`), [], `bound ${TIMEOUT} ms`);
}

/**
 * A listening socket whose process never accepts (its event loop blocked): once its accept queue
 * of two is full, the kernel drops new connection requests, as a wallet host under a SYN flood or
 * behind a dead balancer does. A child process, because a Node server accepts while its loop runs.
 */
async function hostNotAccepting(): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, ['-e', `
    const server = require('node:net').createServer();
    server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
      process.stdout.write(server.address().port + '\\n');
      setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 20);
    });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
  await new Promise((resolve) => setTimeout(resolve, 100)); // its loop is blocked by now
  for (let i = 0; i < 2; i++) {
    const filler = net.connect(port, '127.0.0.1');
    cleanups.push(() => filler.destroy());
    await new Promise((resolve, reject) => filler.once('connect', resolve).once('error', reject));
  }
  return port;
}

test('calls waiting for a connection are answered at the bound, however long connections take to open', async () => {
  const url = `http://127.0.0.1:${await hostNotAccepting()}/w/`;
  const client = createWalletHttp({ timeoutMs: TIMEOUT, connections: 1 });
  cleanups.push(() => client.close());
  const results = await sendAll(client, url, ['first', 'second', 'third']);
  assertAnsweredAtBound(results);
  // The first was handed to a connection being opened: whether its bytes left is not ours to
  // know, so it is not marked. The other two never left the queue: the wallet cannot have them.
  const [first, second, third] = results.map((r) => r.attempt);
  assert.equal(first!.notSent, undefined, first!.error!);
  for (const queued of [second!, third!]) {
    assert.equal(queued.notSent, true, queued.error!);
    assert.match(queued.error!, /^not sent: timeout: no connection to the wallet free within 300 ms/);
  }
});

test('a call still waiting for a connection at its bound is answered then and never sent afterwards', async () => {
  const received: string[] = [];
  const server = http.createServer((req) => received.push(String(req.headers['idempotency-key']))); // never answers
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => { server.closeAllConnections(); server.close(); });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/`;
  const client = createWalletHttp({ timeoutMs: TIMEOUT, connections: 2 });
  cleanups.push(() => client.close());
  const ids = ['held-1', 'held-2', 'queued-1', 'queued-2', 'queued-3'];
  const results = await sendAll(client, url, ids);
  assertAnsweredAtBound(results);
  // Long after: connections freed, nothing of the queued calls went out.
  await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT));
  assert.deepEqual(received.sort(), ['held-1', 'held-2']);
});

test('a stop signal takes a call out of the queue at once, unsent', async () => {
  const received: string[] = [];
  const server = http.createServer((req) => received.push(String(req.headers['idempotency-key'])));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => { server.closeAllConnections(); server.close(); });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/`;
  const client = createWalletHttp({ timeoutMs: 1000, connections: 1 });
  cleanups.push(() => client.close());
  const held = client.send(endpointAt(url), 'credit', body, 'held');
  while (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const stop = new AbortController();
  const t0 = performance.now();
  const queued = client.send(endpointAt(url), 'credit', body, 'queued', stop.signal);
  setTimeout(() => stop.abort('lease lost'), 50);
  const [attempt] = await queued;
  assert.ok(performance.now() - t0 < 50 + SLACK, `answered after ${Math.round(performance.now() - t0)} ms`);
  assert.equal(attempt!.notSent, true);
  assert.match(attempt!.error!, /^not sent: lease lost/);
  await held;
  assert.deepEqual(received, ['held']);
});
