// Shutdown of the real `wagerline serve` is bounded by WAGERLINE_SHUTDOWN_TIMEOUT_MS: a client whose
// upload trickles in would otherwise hold it until SIGKILL. Past the deadline the connections left
// are closed and serve exits 1, with one log line saying what it cut.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { cliEnv, runCli, startCli } from '../helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/net.ts';
import { until } from '../wallet-fixtures.ts';

let db: TestDatabase;
let env: Record<string, string>;
let token: string;

before(async () => {
  db = await freshDatabase();
  env = cliEnv(db.url, { LOG_LEVEL: 'info', WAGERLINE_SHUTDOWN_TIMEOUT_MS: '1500' });
  const cli = async (args: string[]) => {
    const res = await runCli(args, env);
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    return res.json();
  };
  const tenant = await cli(['tenant', 'create', '--name', 'Trickle Bet']);
  const client = await cli(['client', 'create', '--tenant', tenant.tenant_id, '--scopes', 'upload', '--agencies', 'TAB']);
  token = (await cli(['token', '--client-id', client.client_id, '--client-secret', client.client_secret])).access_token;
});

after(() => db.drop());

/** An upload that sends its headers and then its body one byte at a time, for as long as the connection lasts. */
function trickleUpload(port: number): { closed: Promise<void>; stop(): void } {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`POST /public/uploadRaceV2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`
    + 'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"bets":[');
  const timer = setInterval(() => socket.write(' '), 100);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => clearInterval(timer));
  return { closed, stop: () => socket.destroy() };
}

test('an upload that trickles holds shutdown only until the deadline: cut, one line saying what, exit 1', { timeout: 60_000 }, async () => {
  const serve = await startCli(['serve'], { ...env, PORT: String(await freePort()) });
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => serve.child.once('exit', (code, signal) => resolve([code, signal])));
  const upload = trickleUpload(Number(new URL(serve.first.url).port));
  try {
    await until('the upload to be in flight', () => serve.stderr().includes('"url":"/public/uploadRaceV2"'));
    serve.child.kill('SIGTERM');
    const timer = setTimeout(() => serve.child.kill('SIGKILL'), 15_000);
    const [code, signal] = await exited;
    clearTimeout(timer);
    assert.deepEqual([code, signal], [1, null], `serve exits 1 by itself once the deadline passed: ${serve.stderr().slice(-2000)}`);
    await upload.closed; // the server closed it
  } finally {
    upload.stop();
  }
  const lines = serve.stderr().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const cut = lines.filter((l) => l.msg === 'shutdown deadline passed: cut what was left');
  assert.equal(cut.length, 1, serve.stderr());
  assert.equal(cut[0]!.level, 50);
  assert.equal(cut[0]!.deadlineMs, 1500);
  assert.equal(cut[0]!.waitingFor, 'requests');
  assert.deepEqual(cut[0]!.requests, ['POST /public/uploadRaceV2']);
  assert.equal(cut[0]!.walletCallsInFlight, 0);
  assert.ok(lines.findIndex((l) => l.msg === 'shutting down') < lines.indexOf(cut[0]!));
});
