// The quick start: with no DATABASE_URL, `wagerline serve` runs on an embedded PostgreSQL in
// WAGERLINE_DATA_DIR, CLI commands share it while serve runs, and the data survives a restart.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { spawn } from 'node:child_process';
import { BIN, runCli, startCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/net.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-embedded-'));
chmodSync(dataDir, 0o755);
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('serve on the embedded database, share it with the CLI, keep data across restarts', async () => {
  const env: Record<string, string> = {
    DATABASE_URL: '',
    WAGERLINE_DATA_DIR: dataDir,
    WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()),
    PORT: '0',
  };
  const stopServer = async (child: import('node:child_process').ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  };

  const first = await startCli(['serve'], env);
  let tenantId: string;
  try {
    assert.equal((await fetch(`${first.first.url}/readyz`)).status, 200);
    const created = await runCli(['tenant', 'create', '--name', 'Embedded Bet'], env);
    assert.equal(created.code, 0, created.stderr);
    tenantId = created.json().tenant_id;
  } finally {
    await stopServer(first.child);
  }

  const second = await startCli(['serve'], env);
  try {
    const listed = await runCli(['client', 'list', '--tenant', tenantId], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.json(), { clients: [] });
  } finally {
    await stopServer(second.child);
  }
});

test('Ctrl-C in a terminal (SIGINT to the whole process group) stops serve first, then its embedded PostgreSQL', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-ctrlc-'));
  chmodSync(dir, 0o755);
  const env = { ...process.env, DATABASE_URL: '', WAGERLINE_DATA_DIR: dir, WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()), PORT: '0', LOG_LEVEL: 'info' };
  // A process group of its own, as a terminal's foreground job.
  const child = spawn(process.execPath, [BIN, 'serve'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /"msg":"embedded PostgreSQL stopped"/, 'serve stopped it, after its own shutdown');
    assert.doesNotMatch(stderr, /terminating connection due to administrator command|FATAL/, 'PostgreSQL was not interrupted under it');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a postmaster.pid left by a crash, whose PID another program has taken since, is cleared and the database starts', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-stalepid-'));
  chmodSync(dir, 0o755);
  const env = { DATABASE_URL: '', WAGERLINE_DATA_DIR: dir, WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()) };
  try {
    assert.equal((await runCli(['migrate'], env)).code, 0); // creates the cluster, then stops it
    // This test's own process: alive, and not a postgres.
    writeFileSync(path.join(dir, 'pg', 'postmaster.pid'), `${process.pid}\n${path.join(dir, 'pg')}\n0\n${env.WAGERLINE_EMBEDDED_PG_PORT}\n`);
    const listed = await runCli(['tenant', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.json(), { tenants: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two serve on one embedded database: the one that started it stops, the other goes on; the database is left to it', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-twoserve-'));
  chmodSync(dir, 0o755);
  const env = { DATABASE_URL: '', WAGERLINE_DATA_DIR: dir, WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()), PORT: '0', LOG_LEVEL: 'info' };
  const a = await startCli(['serve'], env);
  const b = await startCli(['serve'], env);
  const stop = async (child: import('node:child_process').ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    return exited;
  };
  try {
    assert.equal(await stop(a.child), 0);
    assert.match(a.stderr(), /embedded PostgreSQL left running: other processes use it/);
    assert.equal((await fetch(`${b.first.url}/readyz`)).status, 200, 'the other serve still has its database');
    const created = await runCli(['tenant', 'create', '--name', 'Still Here'], env);
    assert.equal(created.code, 0, created.stderr);
  } finally {
    if (b.child.exitCode === null) await stop(b.child);
    // The database is left running by then (b joined it): stop it as an operator would.
    const pidFile = path.join(dir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
      for (let i = 0; i < 100 && existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two serve started at once on a new data directory: both come up on one database', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-twonew-'));
  chmodSync(dir, 0o755);
  const env = { DATABASE_URL: '', WAGERLINE_DATA_DIR: dir, WAGERLINE_EMBEDDED_PG_PORT: String(await freePort()), PORT: '0' };
  const started = await Promise.allSettled([startCli(['serve'], env), startCli(['serve'], env)]);
  const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    assert.equal(up.length, 2, started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'up')).join('; '));
    for (const s of up) assert.equal((await fetch(`${s.first.url}/readyz`)).status, 200);
  } finally {
    for (const s of up) {
      const exited = new Promise((resolve) => s.child.once('exit', resolve));
      s.child.kill('SIGTERM');
      await exited;
    }
    const pidFile = path.join(dir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGINT');
      } catch {
        // already gone
      }
      for (let i = 0; i < 100 && existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
