// While the database is away the wallet worker's claims fail on every poll: the log says so once
// (warn, the error's message) and says once when they work again (info), not on every poll. A real
// pino logger, as serve's, behind a TCP proxy to the test's PostgreSQL that the test silences.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createPool, type Pool } from '../src/db/pool.ts';
import { eventLog, failureChanges } from '../src/log.ts';
import { createWalletHttp } from '../src/modules/wallet/delivery/http-client.ts';
import { createWalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { dbProxy, type DbProxy } from './helpers/db-proxy.ts';
import { walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
let proxy: DbProxy;
let pool: Pool;
before(async () => {
  f = await walletFixture();
  proxy = await dbProxy(f.db.url);
  pool = createPool(proxy.url, 2, { connectTimeoutMs: 200 });
});
after(async () => {
  await pool.end();
  await proxy.close();
  await f.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an outage of the database: one warn line when claims start failing, one info line when they work again', { timeout: 30_000 }, async () => {
  const lines: Array<{ level: number; msg: string; module: string; err?: string; reason?: string; failures?: number }> = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const log = eventLog(() => pino({ level: 'info' }, stream), 'wallet');
  const worker = createWalletWorker({ db: pool, box: f.box, http: createWalletHttp({ timeoutMs: 1000 }), leaseMs: 5000, pollMs: 50, log });
  await worker.start();
  try {
    await sleep(200);
    assert.equal(lines.length, 0, 'nothing to say while the database answers');
    proxy.silence();
    await sleep(1500); // ~7 polls, each failing after the 200 ms connect timeout
    assert.deepEqual(lines.map((l) => [l.level, l.msg, l.module]), [[40, 'wallet claim failed', 'wallet']]);
    // The error's message: a connection reset under the claim, or the database out of reach.
    assert.match(String(lines[0]!.err), /ECONNRESET|Connection terminated|cannot be reached/);
    assert.doesNotMatch(JSON.stringify(lines[0]), /"stack"/);
    proxy.restore();
    await sleep(600);
    assert.deepEqual(lines.slice(1).map((l) => [l.level, l.msg]), [[30, 'wallet claims work again']]);
    assert.ok(lines[1]!.failures! >= 2, `every failed poll counted: ${lines[1]!.failures}`);
  } finally {
    proxy.restore();
    await worker.stop();
  }
});

test('failureChanges: a second outage is logged again; a success without a failure before it logs nothing', () => {
  const logged: Array<[string, Record<string, unknown> | undefined, string | undefined]> = [];
  const changes = failureChanges((message, fields, level) => logged.push([message, fields, level]), { failed: 'down', recovered: 'up' });
  changes.succeeded();
  changes.failed(new Error('first'));
  changes.failed(new Error('second'));
  changes.succeeded();
  changes.succeeded();
  changes.failed('not an Error');
  assert.deepEqual(logged, [
    ['down', { err: 'first' }, 'warn'],
    ['up', { failures: 2 }, 'info'],
    ['down', { err: 'not an Error' }, 'warn'],
  ]);
});

test('failureChanges with outage: only the outage is logged once; every other failure is logged each time', () => {
  const logged: Array<[string, Record<string, unknown> | undefined]> = [];
  const changes = failureChanges((message, fields) => logged.push([message, fields]), { failed: 'down', recovered: 'up' },
    { outage: (error) => (error as Error).message.startsWith('db') });
  changes.failed(new Error('db away'));
  changes.failed(new Error('db away'));
  changes.failed(new Error('race 5 cannot be settled'));
  changes.failed(new Error('race 6 cannot be settled'));
  changes.succeeded();
  assert.deepEqual(logged, [
    ['down', { err: 'db away' }],
    ['down', { err: 'race 5 cannot be settled' }],
    ['down', { err: 'race 6 cannot be settled' }],
    ['up', { failures: 2 }],
  ]);
});
