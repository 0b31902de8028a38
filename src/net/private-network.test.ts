// Which addresses are public, and the two checks built on it: at save (requirePublicHost) and as a
// connection opens (the connector and dispatcher), against a real HTTP server on 127.0.0.1 that
// must never see a request it should not.
import assert from 'node:assert/strict';
import type dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { fetch, Pool } from 'undici';
import { AppError } from '../errors.ts';
import { verifyWallet } from '../modules/wallet/config/verify-wallet.ts';
import { PRIVATE_ADDRESS, isPublicAddress, platformDefault, publicOnly, publicOnlyConnector, publicOnlyDispatcher, publicOnlyLookup, requirePublicHost } from './private-network.ts';

const NOT_PUBLIC = [
  '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
  '0.0.0.0', '224.0.0.1', '255.255.255.255', '192.0.2.1', '198.18.0.1', '240.0.0.1',
  '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b::7f00:1', '64:ff9b:1::808:808',
  '::7f00:1', '::a9fe:a9fe', '::8.8.8.8', '0:0::8.8.8.8', '100::1', '4000::1', 'fec0::1',
  '168.63.129.16', '::ffff:168.63.129.16', 'not-an-address', '', 'localhost',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '168.63.129.17'];

test('isPublicAddress: loopback, private, link-local, CGNAT, reserved and multicast are not; v4 in v6 is judged by its v4', () => {
  for (const a of NOT_PUBLIC) assert.equal(isPublicAddress(a), false, a);
  for (const a of PUBLIC) assert.equal(isPublicAddress(a), true, a);
});

let server: Server;
let port: number;
let requests = 0;
before(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.end('{"keys":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The code of the connection error under fetch's TypeError. */
const causeCode = (error: unknown) => ((error as { cause?: { code?: string } }).cause?.code);

test('fetch through the public-only dispatcher: a private address in any spelling, and a name resolving to one, are refused before connecting', async () => {
  // Spellings the URL parser turns into 127.0.0.1 or ::1 (decimal, hex, octal, short, mapped, trailing dot).
  const literals = ['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '127.0.0.1.', '[::ffff:127.0.0.1]', '[::1]', '[0:0:0:0:0:0:0:1]'];
  for (const host of [...literals, 'localhost', 'LocalHost']) {
    const error = await fetch(`http://${host}:${port}/`, { dispatcher: publicOnlyDispatcher() }).then(() => undefined, (e: unknown) => e);
    assert.equal(causeCode(error), PRIVATE_ADDRESS, `${host}: ${String(error)}`);
    assert.match(String((error as { cause?: Error }).cause?.message), /(is not a public address|resolves to an address that is not public); this URL may only lead to public addresses$/);
  }
  assert.equal(requests, 0);
  // The same server, without the guard: it is there, so only the guard kept the requests away.
  const plain = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(plain.status, 200);
  assert.equal(requests, 1);
});

test('an undici Pool with the public-only connector refuses too (the wallet client\'s pools)', async () => {
  const pool = new Pool(`http://localhost:${port}`, { connect: publicOnlyConnector({ timeout: 1000 }) });
  try {
    const before = requests;
    await assert.rejects(pool.request({ path: '/', method: 'GET' }), (e: Error & { code?: string }) => e.code === PRIVATE_ADDRESS);
    assert.equal(requests, before);
  } finally {
    await pool.close();
  }
});

test('publicOnlyLookup hands a public address on, in both shapes net asks for', async () => {
  const one = await new Promise<[string, number | undefined]>((resolve, reject) =>
    publicOnlyLookup('8.8.8.8', {}, (e, address, family) => (e ? reject(e) : resolve([address as string, family]))));
  assert.deepEqual(one, ['8.8.8.8', 4]);
  const all = await new Promise<dns.LookupAddress[]>((resolve, reject) =>
    publicOnlyLookup('8.8.8.8', { all: true }, (e, addresses) => (e ? reject(e) : resolve(addresses as dns.LookupAddress[]))));
  assert.deepEqual(all, [{ address: '8.8.8.8', family: 4 }]);
});

test('requirePublicHost: refuses a private literal or a name resolving to one, naming the option and the host, never a resolved address', async () => {
  const literal = (host: string) => `${host}, which is not a public address`;
  for (const [url, shown] of [['http://127.0.0.1:9/api', literal('127.0.0.1')], ['http://localhost/x', 'localhost, which resolves to an address that is not public'],
    ['https://10.0.0.7/wallet', literal('10.0.0.7')], ['http://[::1]:8000/', literal('::1')], ['http://169.254.169.254/latest', literal('169.254.169.254')]] as const) {
    await assert.rejects(requirePublicHost(url, '--url'), (e: unknown) => {
      assert.ok(e instanceof AppError && e.code === 'private_address', String(e));
      assert.ok(e.message.startsWith(`--url leads to ${shown}; only the platform may allow`), e.message);
      return true;
    }, url);
  }
  await assert.rejects(requirePublicHost('http://localhost/x', '--url'), (e: Error) => !/127\.0\.0\.1|::1/.test(e.message));
  await requirePublicHost('https://93.184.215.14/api', '--url');
  // A name that does not resolve (now) is let through: every connection is checked anyway.
  await requirePublicHost('https://wallet.invalid/api', '--url');
});

test('publicOnly: public addresses only, unless the configuration or WAGERLINE_PRIVATE_NETWORK=any allows a private one', () => {
  assert.deepEqual([publicOnly(false), publicOnly(false, false), publicOnly(true), publicOnly(false, true), publicOnly(true, true)], [true, true, false, false, false]);
});

test('platformDefault: an IP address the platform wrote is taken as written; a host name is not trusted without its word', () => {
  for (const url of ['http://127.0.0.1:9/api', 'http://[::1]/x', 'https://10.1.2.3/', 'https://93.184.215.14/']) assert.equal(platformDefault(url), true, url);
  for (const url of ['http://localhost:9/api', 'https://wallet.example.com/api', 'http://10.0.0.1.nip.io/']) assert.equal(platformDefault(url), false, url);
});

test('verifyWallet with publicOnly connects to public addresses only (a name re-pointed between the save check and the check of the wallet)', async () => {
  const before = requests;
  const wallet = { url: `http://localhost:${port}/w`, auth: { kind: 'api_key' as const, apiKey: 'k', header: 'x-api-key' } };
  await assert.rejects(verifyWallet({ ...wallet, publicOnly: true }, 2000), (e: AppError) =>
    e.code === 'bad_request' && /the wallet is unreachable: POST .+: the host is not at a public address \(EPRIVATEADDRESS\)/.test(e.message));
  assert.equal(requests, before);
  // Without it the same check reaches the server (which is no wallet, so it is refused for that).
  await assert.rejects(verifyWallet(wallet, 2000), /no wallet at/);
  assert.equal(requests, before + 1);
});
