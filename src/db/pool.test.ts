import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { silentServer } from '../../test/helpers/db-proxy.ts';
import { freshDatabase, type TestDatabase } from '../../test/helpers/db.ts';
import { freePort } from '../../test/helpers/net.ts';
import { toAppError } from '../http/problem.ts';
import { clientOptions, createPool, SERVER_STATEMENT_GRACE_MS, withTransaction, type DatabaseUnavailable } from './pool.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

test('a read-only transaction (reports) reads, and refuses any write', async () => {
  const { rows } = await withTransaction(db.pool, (tx) => tx.query('SELECT count(*)::int AS n FROM tenants'), { isolation: 'repeatable read', readOnly: true });
  assert.equal(rows[0].n, 0);
  await assert.rejects(
    withTransaction(db.pool, (tx) => tx.query("INSERT INTO tenants (name, currency, timezone) VALUES ('x', 'AUD', 'UTC')"), { readOnly: true }),
    (error: { code?: string }) => error.code === '25006', // read_only_sql_transaction
  );
});

test('genericPlans and lockTimeoutMs hold for their transaction only', async () => {
  const settings = "SELECT current_setting('plan_cache_mode') AS plans, current_setting('lock_timeout') AS lock";
  const inside = await withTransaction(db.pool, (tx) => tx.query(settings), { genericPlans: true, lockTimeoutMs: 1500 });
  assert.deepEqual(inside.rows[0], { plans: 'force_generic_plan', lock: '1500ms' });
  const plain = await withTransaction(db.pool, (tx) => tx.query(settings));
  assert.equal(plain.rows[0].plans, 'auto');
  const { rows } = await db.pool.query(settings);
  assert.deepEqual(rows[0], { plans: 'auto', lock: '0' }, 'SET LOCAL ends with its transaction');
});

test('a transaction whose failed statement was caught is not reported committed: nothing of it is kept', async () => {
  const insert = "INSERT INTO tenants (name, currency, timezone) VALUES ('kept?', 'AUD', 'UTC')";
  await assert.rejects(
    withTransaction(db.pool, async (tx) => {
      await tx.query(insert);
      await tx.query('SELECT 1/0').catch(() => undefined); // the transaction is aborted from here on
      return 'done';
    }),
    /rolled back at COMMIT \(ROLLBACK\)/,
  );
  const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM tenants WHERE name = 'kept?'");
  assert.equal(rows[0].n, 0);
});

test('a database host that accepts and never answers: a query and a transaction fail as service_unavailable, not hang', { timeout: 30_000 }, async () => {
  const silent = await silentServer();
  const pool = createPool(`postgres://postgres@127.0.0.1:${silent.port}/postgres`, 2, { connectTimeoutMs: 300 });
  try {
    const unavailable = (error: { code?: string; status?: number; message?: string; reason?: string }) => {
      assert.deepEqual([error.code, error.status], ['service_unavailable', 503]);
      assert.equal(error.message, 'the database cannot be reached; try again shortly');
      assert.match(String(error.reason), /no answer within 300 ms \(WAGERLINE_DB_CONNECT_TIMEOUT_MS\)/);
      return true;
    };
    await assert.rejects(pool.query('SELECT 1'), unavailable);
    await assert.rejects(withTransaction(pool, (tx) => tx.query('SELECT 1')), unavailable);
    // Three at once on a pool of two: the third waits for a slot, whose connect fails in turn.
    const all = await Promise.allSettled([1, 2, 3].map(() => pool.query('SELECT 1')));
    for (const result of all) assert.ok(result.status === 'rejected' && unavailable(result.reason));
  } finally {
    await pool.end();
    await silent.close();
  }
});

test('a refused connection is service_unavailable too; a failing statement keeps its own error', async () => {
  const port = await freePort();
  const refused = createPool(`postgres://postgres@127.0.0.1:${port}/postgres`, 1, { connectTimeoutMs: 5000 });
  try {
    await assert.rejects(refused.query('SELECT 1'), (error: { code?: string; reason?: string }) =>
      error.code === 'service_unavailable' && /ECONNREFUSED/.test(String(error.reason)));
  } finally {
    await refused.end();
  }
  await assert.rejects(db.pool.query('SELECT 1/0'), (error: { code?: string }) => error.code === '22012');
});

test('every connection of ours is probed by TCP keepalive once idle for keepAliveMs (a silent host is found out)', async () => {
  const calls: Array<[boolean | undefined, number | undefined]> = [];
  const original = net.Socket.prototype.setKeepAlive;
  net.Socket.prototype.setKeepAlive = function (this: net.Socket, enable?: boolean, delay?: number) {
    calls.push([enable, delay]);
    return original.call(this, enable, delay);
  };
  const pool = createPool(db.url, 1, { keepAliveMs: 4321 });
  const client = new pg.Client(clientOptions(db.url, 'keepalive test', 1000, 1234));
  try {
    await pool.query('SELECT 1');
    assert.deepEqual(calls, [[true, 4321]], 'the pool\'s connection');
    await client.connect();
    assert.deepEqual(calls, [[true, 4321], [true, 1234]], 'a connection of its own (migrations, LISTEN)');
  } finally {
    net.Socket.prototype.setKeepAlive = original;
    await client.end();
    await pool.end();
  }
});

test('a statement past queryTimeoutMs is service_unavailable, and its connection is dropped, not handed to the next caller', { timeout: 30_000 }, async () => {
  const pool = createPool(db.url, 1, { queryTimeoutMs: 300 });
  const holder = await db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE tenants IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const error = await withTransaction(pool, (tx) => tx.query('SELECT count(*) FROM tenants')).then(() => undefined, (e: unknown) => e);
    assert.ok(Date.now() - started < 2000, 'no ROLLBACK waited behind the statement');
    assert.deepEqual([toAppError(error).status, toAppError(error).code], [503, 'service_unavailable'], String(error));
    assert.match(String((toAppError(error) as DatabaseUnavailable).reason), /WAGERLINE_DB_QUERY_TIMEOUT_MS/);
    // The pool's only connection still waits for the lock: reused, this would wait behind it.
    const { rows } = await pool.query('SELECT 2 AS n');
    assert.equal(rows[0].n, 2);
    await assert.rejects(pool.query('SELECT count(*) FROM tenants'), (e: unknown) => toAppError(e).status === 503);
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
    await pool.end();
  }
});

test('the server stops a statement the client gave up on, SERVER_STATEMENT_GRACE_MS later, and rolls its transaction back', { timeout: 30_000 }, async () => {
  const pool = createPool(db.url, 1, { queryTimeoutMs: 300 });
  const holder = await db.pool.connect();
  const waiting = async () => Number((await db.pool.query(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT 3 FROM tenants' AND wait_event_type = 'Lock'")).rows[0].n);
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE tenants IN ACCESS EXCLUSIVE MODE');
    const error = await withTransaction(pool, (tx) => tx.query('SELECT 3 FROM tenants')).then(() => undefined, (e: unknown) => e);
    assert.equal(toAppError(error).status, 503, String(error));
    assert.equal(await waiting(), 1, 'the statement still waits on the server once the client gave up');
    const deadline = Date.now() + 300 + SERVER_STATEMENT_GRACE_MS + 5000;
    while (await waiting() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await waiting(), 0, 'the server stopped the statement while the lock is still held');
  } finally {
    await holder.query('ROLLBACK');
    holder.release();
    await pool.end();
  }
});
