// The wallet worker's LISTEN connection comes back after the database was unreachable for a
// while, even when the first attempts to reconnect fail (it used to give up after one). The log
// says once that the attempts fail and once that LISTEN works again, not on every attempt.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createWalletHttp } from '../src/modules/wallet/delivery/http-client.ts';
import { createWalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { walletFixture, type WalletFixture } from './wallet-fixtures.ts';

let f: WalletFixture;
let admin: pg.Client;
before(async () => {
  f = await walletFixture();
  admin = new pg.Client({ connectionString: process.env.WAGERLINE_TEST_ADMIN_URL });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await f.close();
});

const dbName = () => new URL(f.db.url).pathname.slice(1);
const listeners = async () => (await admin.query<{ pid: number }>(
  "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN wallet_calls'", [dbName()])).rows.map((r) => r.pid);

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('a lost LISTEN connection is retried until it holds: the first failed attempt and the recovery logged', async () => {
  const logged: Array<{ message: string; fields?: Record<string, unknown>; level?: string }> = [];
  const worker = createWalletWorker({ db: f.db.pool, box: f.box, http: createWalletHttp({ timeoutMs: 1000 }), leaseMs: 5000, pollMs: 100,
    listenUrl: f.db.url, log: (message, fields, level) => logged.push({ message, fields, level }) });
  const said = (message: string) => logged.filter((l) => l.message === message);
  await worker.start();
  try {
    const [first] = await listeners();
    assert.ok(first, 'listening');
    await admin.query(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend($1)', [first]);
    await until('a failed attempt', async () => said('wallet worker: LISTEN failed; retrying').length > 0);
    await new Promise((resolve) => setTimeout(resolve, 500)); // attempts every 100 ms, all refused
    assert.equal(said('wallet worker: LISTEN failed; retrying').length, 1, 'logged once, not on every attempt');
    assert.equal(said('wallet worker: LISTEN failed; retrying')[0]!.level, 'warn');
    await admin.query(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS true`);
    await until('a new LISTEN connection', async () => (await listeners()).some((pid) => pid !== first));
    await until('the recovery logged', async () => said('wallet worker: LISTEN works again').length > 0);
    const [recovered] = said('wallet worker: LISTEN works again');
    assert.equal(recovered!.level, 'info');
    assert.ok(Number(recovered!.fields?.failures) >= 2, `every failed attempt counted: ${String(recovered!.fields?.failures)}`);
    assert.equal(said('wallet worker: the listening connection failed; reconnecting').length, 1);
  } finally {
    await admin.query(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS true`);
    await worker.stop();
  }
});
