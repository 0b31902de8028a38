// The commands that listen (wallet-sandbox, dev-jwks) when they cannot: a port in use, a host that
// does not resolve, an address that is not this machine's. Each is one line naming the port or the
// host and the option that chooses it, exit 1 (README "Command line"), never "internal error" and
// never the database's message: a --host that does not resolve fails with the same ENOTFOUND as a
// DATABASE_URL host that does not, and only the error's origin tells them apart.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { describeError, HELP_HINT } from '../src/cli/run.ts';
import { ListenError } from '../src/tools/listen.ts';
import { runCli } from './helpers/cli.ts';
import { freePort } from './helpers/net.ts';

const servers: net.Server[] = [];
after(async () => {
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
});

async function takenPort(): Promise<number> {
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** 192.0.2.0/24 is for documentation (RFC 5737): never an address of this machine. */
const NOT_HERE = '192.0.2.1';

// Not a usage mistake: one line, without the --help hint (a usage mistake keeps it, last test).
const line = (message: string) => `wagerline: ${message}\n`;

test('wallet-sandbox on a port already in use says so, naming the port, the host and --port; exit 1', async () => {
  const port = await takenPort();
  const run = await runCli(['wallet-sandbox', '--memory', '--port', String(port)], {});
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, line(`port ${port} on 127.0.0.1 is already in use: stop that process or choose another with --port`));
});

test('dev-jwks on a port already in use says so, not "internal error"', async () => {
  const port = await takenPort();
  const run = await runCli(['dev-jwks', '--port', String(port)], {});
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, line(`port ${port} on 127.0.0.1 is already in use: stop that process or choose another with --port`));
});

test('wallet-sandbox --memory with a --host that does not resolve names the host and --host, not the database', async () => {
  const run = await runCli(['wallet-sandbox', '--memory', '--port', '0', '--host', 'no-such-host.invalid'], {});
  assert.equal(run.code, 1, run.stderr);
  assert.doesNotMatch(run.stderr, /database/i, run.stderr);
  assert.equal(run.stderr, line('cannot listen on no-such-host.invalid: the host name cannot be resolved (choose another with --host)'));
});

test('an IP address that is not this machine\'s is said so, naming it and --host, for both commands', async () => {
  for (const args of [['wallet-sandbox', '--memory'], ['dev-jwks']]) {
    const run = await runCli([...args, '--port', '0', '--host', NOT_HERE], {});
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, line(`cannot listen on ${NOT_HERE}: not an address of this machine (choose another with --host)`), args[0]);
  }
});

test('only the database\'s own connection errors blame the database', async () => {
  const lookup = (code: string) => Object.assign(new Error(`getaddrinfo ${code} db.example`), { code, syscall: 'getaddrinfo', hostname: 'db.example' });
  for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
    assert.match(describeError(lookup(code)), /^cannot reach the database/, code);
    assert.equal(describeError(new ListenError('db.example', 8080, lookup(code))),
      'cannot listen on db.example: the host name cannot be resolved (choose another with --host)', code);
  }
  // A listen error that reached the CLI unwrapped still names its port and host (its syscall says it is one).
  const raw = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen', address: '127.0.0.1', port: 9090 });
  assert.equal(describeError(raw), 'port 9090 on 127.0.0.1 is already in use: stop that process or choose another with --port');
  // An unknown listen error names the port, the host and the code, never Node's text.
  assert.equal(describeError(new ListenError('127.0.0.1', 9090, Object.assign(new Error('weird'), { code: 'EWEIRD' }))), 'cannot listen on port 9090 on 127.0.0.1 (EWEIRD)');
});

test('wallet-sandbox with a database that cannot be reached still says so', async () => {
  const run = await runCli(['wallet-sandbox', '--port', '0'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`, LOG_LEVEL: 'silent' });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /^wagerline: cannot reach the database/);
});

test('a usage mistake (exit 2) is followed by the --help hint; a port in use (exit 1) is not', async () => {
  const run = await runCli(['dev-jwks', '--port', 'nope'], {});
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /^wagerline: .*--port.*\n/);
  assert.ok(run.stderr.endsWith(`\n${HELP_HINT}\n`), run.stderr);
});
