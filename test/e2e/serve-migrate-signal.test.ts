// SIGTERM while the real `wagerline serve` is applying migrations. The migration in progress is
// held inside its transaction by a test transaction that creates the same table (PostgreSQL makes
// the second CREATE wait for the first to end), so the signal lands mid-migration every time.
// serve lets that migration finish, starts no other, and exits 0 without serving; if the
// migration is still held at WAGERLINE_SHUTDOWN_TIMEOUT_MS, it is cancelled (rolled back) and
// serve exits 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import pg from 'pg';
import { BIN, cliEnv } from '../helpers/cli.ts';
import { freshDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/net.ts';
import { until } from '../wallet-fixtures.ts';

const FIRST = '0001_foundation';

/** A transaction creating the first table 0001_foundation creates, left open: that migration waits on it. */
async function holdFirstMigration(url: string): Promise<pg.Client> {
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query('CREATE TABLE tenants (held int)');
  return blocker;
}

/** serve on an empty database, signalled once its first migration waits inside its transaction. */
async function signalMidMigration(url: string, settings: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...cliEnv(url, { LOG_LEVEL: 'info', PORT: String(await freePort()), ...settings }) } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  const migrating = async () => (await watcher.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wagerline-migrate' AND wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n > 0;
  await until('the migration to wait inside its transaction', migrating, 30_000);
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  void exited.then(() => clearTimeout(killer));
  return { exited, watcher, output: () => ({ stdout, stderr }) };
}

const lines = (stderr: string) => stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const appliedIn = async (client: pg.Client) => (await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name);

test('SIGTERM during a migration: it finishes, no other starts, serve exits 0 without serving', { timeout: 60_000 }, async () => {
  const db = await freshDatabase({ empty: true });
  const blocker = await holdFirstMigration(db.url);
  const run = await signalMidMigration(db.url, {});
  try {
    await new Promise((resolve) => setTimeout(resolve, 300)); // serve holds on, waiting for its migration
    await blocker.query('ROLLBACK'); // the migration goes on and commits
    assert.deepEqual(await run.exited, [0, null], run.output().stderr.slice(-3000));
    const { stdout, stderr } = run.output();
    assert.equal(stdout, '', 'never announced as listening');
    const said = lines(stderr);
    assert.ok(!said.some((l) => String(l.msg).startsWith('Server listening')), stderr);
    const stopped = said.find((l) => l.msg === 'stopped before serving');
    assert.deepEqual([stopped?.level, stopped?.signal, stopped?.applied], [30, 'SIGTERM', [FIRST]], stderr);
    assert.ok(Array.isArray(stopped?.pending) && (stopped.pending as string[]).length > 0 && !(stopped.pending as string[]).includes(FIRST));
    assert.deepEqual(await appliedIn(run.watcher), [FIRST], 'the migration in progress committed, no other ran');
  } finally {
    await blocker.end();
    await run.watcher.end();
    await db.drop();
  }
});

test('SIGTERM during a migration held past the shutdown deadline: it is rolled back, serve exits 1 saying so', { timeout: 60_000 }, async () => {
  const db = await freshDatabase({ empty: true });
  const blocker = await holdFirstMigration(db.url);
  const run = await signalMidMigration(db.url, { WAGERLINE_SHUTDOWN_TIMEOUT_MS: '1000' });
  try {
    assert.deepEqual(await run.exited, [1, null], run.output().stderr.slice(-3000));
    // Cancelled, not left waiting behind the lock it could not get (a dead client's backend would).
    assert.equal((await run.watcher.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'wagerline-migrate'")).rows[0].n, 0);
    const { stdout, stderr } = run.output();
    assert.equal(stdout, '');
    const fatal = lines(stderr).find((l) => l.level === 60);
    assert.equal(fatal?.msg, `serve did not start: the shutdown deadline (1000 ms) passed during migration ${FIRST}: it was cancelled and rolled back; it is applied at the next start`, stderr);
    await blocker.query('ROLLBACK');
    assert.deepEqual(await appliedIn(run.watcher), [], 'nothing of the migration was kept');
    assert.equal((await run.watcher.query("SELECT to_regclass('operator_clients') AS t")).rows[0].t, null);
  } finally {
    await blocker.end();
    await run.watcher.end();
    await db.drop();
  }
});
