// startedServer: the embedded start ends when the server it spawned is ready by its postmaster.pid,
// even if the library never sees its "ready" message; another process's server never counts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { postmasterStatus, startedServer } from './embedded-start.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'wl-embedded-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** postmaster.pid as PostgreSQL writes it: PID, data directory, start time, port, socket dir, address, shared memory, status. */
const pidFile = (pid: number, status: string) =>
  writeFileSync(path.join(dir, 'postmaster.pid'), [pid, dir, '1795652225', '37691', '', '127.0.0.1', '  2162688    131080', `${status.padEnd(8)}`, ''].join('\n'));
const never = { start: () => new Promise<void>(() => undefined) };
const within = <T>(ms: number, promise: Promise<T>) =>
  Promise.race([promise.then(() => 'done' as const), new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), ms))]);

test('postmasterStatus reads the PID, the port and the status line; a file not there or not written yet is no server', () => {
  pidFile(4242, 'ready');
  assert.deepEqual(postmasterStatus(dir), { pid: 4242, port: 37691, status: 'ready' });
  assert.equal(postmasterStatus(path.join(dir, 'none')), undefined);
  writeFileSync(path.join(dir, 'postmaster.pid'), '');
  assert.equal(postmasterStatus(dir), undefined, 'created, PID not written yet');
  pidFile(0, 'ready');
  assert.equal(postmasterStatus(dir), undefined, 'PID 0 is no process of its own');
});

test('a start whose "ready" message was missed ends once its own postmaster is ready in postmaster.pid', async () => {
  rmSync(path.join(dir, 'postmaster.pid'));
  const fromNothing = startedServer(never, dir, () => 4242, 10);
  assert.equal(await within(60, fromNothing), 'waiting', 'no file yet: the poll goes on');
  pidFile(4242, 'ready');
  assert.equal(await within(1000, fromNothing), 'done');
  pidFile(4242, 'starting');
  const started = startedServer(never, dir, () => 4242, 10);
  assert.equal(await within(100, started), 'waiting', 'still starting');
  pidFile(4242, 'ready');
  assert.equal(await within(1000, started), 'done');
});

test('another process\'s ready server in the directory does not end the start; the start\'s own failure does', async () => {
  pidFile(999_999, 'ready');
  assert.equal(await within(150, startedServer(never, dir, () => 4242, 10)), 'waiting');
  const failing = { start: () => new Promise<void>((_, reject) => setTimeout(() => reject(new Error('port taken')), 20)) };
  await assert.rejects(startedServer(failing, dir, () => 4242, 10), /port taken/);
});

test('a start that resolves by itself is not held up by the file', async () => {
  const quick = { start: () => Promise.resolve() };
  assert.equal(await within(100, startedServer(quick, path.join(dir, 'none'), () => undefined, 10_000)), 'done');
});
