// spec 8: a call is retried "with the same details". Every call carries Idempotency-Key: a
// wallet may fingerprint the bytes of the body it first received under that key and refuse a
// replay whose bytes differ (as the IETF Idempotency-Key draft suggests: 422). So each ask of one
// transactionId must carry the same bytes, whether it was built from the caller's objects (the
// placement's own asks, a call sent at commit) or from the stored row (a worker's retry).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Tx } from '../src/db/pool.ts';
import type { EnqueuedCall, WalletCallInput } from '../src/modules/wallet/outbox/enqueue.ts';
import { CLIENT, reserveAndConfirm, until, walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
let forwarder: http.Server;
/** Raw bodies as the wallet received them, by path. */
const raw: Array<{ path: string; body: string }> = [];

before(async () => {
  f = await walletFixture({ settings: { WAGERLINE_WALLET_POLL_MS: 600_000 } });
  // Records each body's bytes, then hands the request to the sandbox unchanged.
  forwarder = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      raw.push({ path: req.url!, body });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (req.headers.authorization) headers.authorization = req.headers.authorization;
      const answer = await fetch(`${f.sandbox.url}${req.url}`, { method: 'POST', headers, body });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  await f.wallet.setWallet({ tenantId: f.tenantId, url, auth: 'client_credentials', ...CLIENT, concurrency: 20, amountUnit: 'dollars' });
});
after(async () => {
  forwarder.closeAllConnections();
  forwarder.close();
  await f.close();
});

const bodiesOf = (path: string, transactionId: string) =>
  raw.filter((r) => r.path === path && r.body.includes(transactionId)).map((r) => r.body);

test('a reserve asked by placement and again by the worker carries the same bytes every time', async () => {
  const b = reserveAndConfirm(f.tenantId);
  f.sandbox.injectFaults([{ op: 'reserve', kind: 'status', status: 503, times: 3 }]);
  const result = await f.wallet.reserve(b.input);
  assert.equal(result.outcome, 'unknown');
  await f.worker.drain();
  const bodies = bodiesOf('/reserve', result.transactionId);
  assert.equal(bodies.length, 4, 'three asks by placement, one by the worker');
  assert.deepEqual(new Set(bodies).size, 1, `different bytes for one transactionId:\n${[...new Set(bodies)].join('\n')}`);
});

test('a confirm sent at commit and retried by a worker carries the same bytes every time', async () => {
  const b = reserveAndConfirm(f.tenantId);
  // Keys in an order of the caller's choosing, numbers as the caller gave them.
  const betMetadata = { legs: [{ selection: [{ position: 1, fixedOdds: 3.5 }], eventId: b.betId }], id: b.betId, amount: 10 };
  const take = {
    context: undefined,
    group: {
      take: async (_tx: Tx, _c: unknown[], queueNext: (calls: WalletCallInput[]) => Promise<EnqueuedCall[]>) =>
        queueNext([{ ...b.confirm, betMetadata } as WalletCallInput]),
    },
  };
  f.sandbox.injectFaults([{ op: 'confirm', kind: 'status', status: 503, times: 1 }]);
  await f.worker.start();
  let confirmId: string;
  try {
    assert.equal((await f.wallet.reserve(b.input, { take })).outcome, 'reserved');
    const confirmOf = async () => (await f.wallet.callsOfBet(b.betId)).calls.find((c) => c.op === 'confirm')!;
    await until('confirm sent at commit and answered', async () => (await confirmOf()).failures === 1, 5000);
    confirmId = (await confirmOf()).transaction_id;
  } finally {
    await f.worker.stop();
  }
  f.clock.advance(5 * 60_000);
  await f.loggedWorker().worker.drain(); // a stopped worker claims nothing more

  assert.equal((await f.call(confirmId)).status, 'delivered');
  const bodies = bodiesOf('/confirm', confirmId);
  assert.equal(bodies.length, 2);
  assert.deepEqual(new Set(bodies).size, 1, `different bytes for one transactionId:\n${[...new Set(bodies)].join('\n')}`);
});
