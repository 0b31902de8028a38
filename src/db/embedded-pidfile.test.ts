// runningPort (embedded.ts): a server found in the data directory is used only once its
// postmaster.pid says "ready"; one still starting refuses connections ("the database system is
// starting up"), so a second process started at the same moment waits for it instead.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runningPort } from './embedded.ts';

test('a postgres process whose pid file says starting is not used yet; ready, it is', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wagerline-pidfile-'));
  // A process the process table names "postgres", as the server's is.
  const binary = path.join(dir, 'postgres');
  copyFileSync('/bin/sleep', binary);
  const child = spawn(binary, ['30'], { stdio: 'ignore' });
  t.after(() => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const pidFile = (status: string) => writeFileSync(path.join(dir, 'postmaster.pid'),
    [child.pid, dir, '1795620613', '55999', '/tmp', '127.0.0.1', '  2149590        19', status, ''].join('\n'));
  pidFile('starting');
  assert.equal(runningPort(dir), undefined);
  pidFile('ready   ');
  assert.equal(runningPort(dir), 55999);
  pidFile('stopping');
  assert.equal(runningPort(dir), undefined);
});
