// While the database is away, serve's background loops fail on every round: settlement, the
// refresh of signing keys and revocations, and the LISTEN of live bet updates. Each says so once
// (warn, the error's message) and says once when it works again (info, with the rounds that
// failed), not on every round. A real pino logger, as serve's, and services on a pool behind a TCP
// proxy to the test's PostgreSQL that the test silences.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { eventLog } from '../src/log.ts';
import type { Services } from '../src/services.ts';
import { testServices } from './helpers/app.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { dbProxy, type DbProxy } from './helpers/db-proxy.ts';

interface Line { level: number; msg: string; module: string; err?: string; failures?: number }

let db: TestDatabase;
let proxy: DbProxy;
let pool: Pool;
let services: Services;
const lines: Line[] = [];
before(async () => {
  db = await freshDatabase();
  proxy = await dbProxy(db.url);
  pool = createPool(proxy.url, 4, { connectTimeoutMs: 200 });
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  services = testServices({ ...db, url: proxy.url, pool }, createSecretBox(randomBytes(32)), {
    listenUrl: proxy.url,
    log: eventLog(() => pino({ level: 'info' }, stream), 'wallet'),
    // Rounds every 50 ms: a second's outage is many failed rounds of each loop.
    settings: { WAGERLINE_AUTH_REFRESH_SECONDS: 0.05, WAGERLINE_DB_CONNECT_TIMEOUT_MS: 200 },
  });
});
after(async () => {
  await services.close();
  await pool.end();
  await proxy.close();
  await db.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const said = (msg: string) => lines.filter((l) => l.msg === msg);

test('an outage of the database: each background loop logs its first failure and its recovery, once', { timeout: 30_000 }, async () => {
  await services.tokens.start();
  const settlement = services.settlement.startWorker({ pollMs: 50 });
  const unsubscribe = services.betUpdates.subscribe(() => true, () => undefined);
  try {
    for (let i = 0; i < 100 && !services.betUpdates.listening(); i++) await sleep(20);
    assert.ok(services.betUpdates.listening(), 'bet updates listening');
    await sleep(200);
    assert.deepEqual(lines, [], 'nothing to say while the database answers');
    proxy.silence();
    await sleep(3500); // bet updates retry every second; the others every 50 ms
    const failed = {
      settlement: 'settlement failed; retrying',
      tokens: 'token keys and revocations could not be refreshed; the last ones read stay in force',
      updates: 'bet updates: LISTEN failed; retrying',
    };
    for (const msg of Object.values(failed)) {
      assert.equal(said(msg).length, 1, `${msg}: ${said(msg).length} lines`);
      assert.equal(said(msg)[0]!.level, 40);
      assert.match(String(said(msg)[0]!.err), /ECONNRESET|Connection terminated|cannot be reached|timeout/i);
    }
    assert.equal(said('bet updates: the listening connection failed; reconnecting').length, 1, 'the lost connection, once');
    assert.equal(said(failed.tokens)[0]!.module, 'auth');
    assert.equal(said(failed.settlement)[0]!.module, 'settlement');
    assert.equal(said(failed.updates)[0]!.module, 'betting');
    proxy.restore();
    await sleep(2000);
    const recovered = ['settlement works again', 'token keys and revocations refreshed again', 'bet updates: LISTEN works again'];
    for (const msg of recovered) {
      assert.equal(said(msg).length, 1, `${msg}: ${said(msg).length} lines`);
      assert.equal(said(msg)[0]!.level, 30);
      assert.ok(said(msg)[0]!.failures! >= 2, `${msg}: every failed round counted (${said(msg)[0]!.failures})`);
    }
    for (const msg of Object.values(failed)) assert.equal(said(msg).length, 1, `${msg} again after the recovery`);
    assert.ok(services.betUpdates.listening(), 'bet updates listening again');
  } finally {
    proxy.restore();
    unsubscribe();
    await settlement.stop();
    services.tokens.stop();
  }
});
