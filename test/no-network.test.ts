// The test harness keeps every test on this machine (test/helpers/no-network.mjs): connections
// off the machine fail at once, in this process and in the processes tests start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';

test('fetch to an address off this machine fails at once; 127.0.0.1 still works', async () => {
  // 192.0.2.1 is TEST-NET-1 (RFC 5737): never routed, so without the guard this would hang, not fail fast.
  await assert.rejects(fetch('http://192.0.2.1:8080/', { signal: AbortSignal.timeout(5000) }), (error: Error & { cause?: { code?: string } }) => {
    assert.equal(error.cause?.code, 'ERR_TEST_OUTBOUND', String(error.cause ?? error));
    return true;
  });
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    assert.equal(await res.text(), 'ok');
  } finally {
    server.close();
  }
});

test('a child process a test starts is guarded too', () => {
  const script = "require('node:net').connect(9, 'example.com').on('error', (e) => { console.log(e.code); process.exit(0); });";
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(child.stdout.trim(), 'ERR_TEST_OUTBOUND', child.stderr);
});
