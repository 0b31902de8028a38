import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, QUERY_TIMEOUT_FLOOR_MS, SETTINGS, loadConfig } from './config.ts';
import { REPORT_TIMEOUT_MS } from './modules/reports/reports.service.ts';

test('defaults apply when nothing is set', () => {
  const config = loadConfig({});
  assert.equal(config.HOST, '127.0.0.1');
  assert.equal(config.PORT, 8080);
  assert.equal(config.LOG_LEVEL, 'info');
  assert.equal(config.DATABASE_URL, undefined);
  assert.equal(config.WAGERLINE_DATA_DIR, path.resolve('.wagerline'));
  assert.equal(config.WAGERLINE_TRUST_PROXY, false);
});

test('database bounds: keepalive after 10 s idle, statements bounded at 3 minutes (above the reports\' own bound), 0 turns that off', () => {
  const config = loadConfig({});
  assert.equal(config.WAGERLINE_DB_KEEPALIVE_MS, 10000);
  assert.equal(config.WAGERLINE_DB_QUERY_TIMEOUT_MS, 180000);
  assert.equal(loadConfig({ WAGERLINE_DB_QUERY_TIMEOUT_MS: '0' }).WAGERLINE_DB_QUERY_TIMEOUT_MS, 0);
  assert.ok(QUERY_TIMEOUT_FLOOR_MS > REPORT_TIMEOUT_MS, 'a report the server still runs is never cut by the client');
});

test('WAGERLINE_TRUST_PROXY: addresses and CIDR ranges of either family', () => {
  assert.equal(loadConfig({ WAGERLINE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).WAGERLINE_TRUST_PROXY, '10.0.0.0/8,127.0.0.1,fd00::/8');
});

const wrong: Array<[string, string, RegExp]> = [
  ['PORT', '80a', /^PORT: must be a whole number/],
  ['PORT', '70000', /^PORT: must be between 0 and 65535/],
  ['LOG_LEVEL', 'loud', /^LOG_LEVEL: must be one of fatal, error/],
  ['DATABASE_URL', 'not a url', /^DATABASE_URL: is not a URL/],
  ['DATABASE_URL', 'mysql://x/y', /^DATABASE_URL: must use postgres:\/\//],
  ['WAGERLINE_SECRET_KEY', 'c2hvcnQ=', /^WAGERLINE_SECRET_KEY: must be 32 bytes/],
  ['WAGERLINE_TOKEN_TTL_SECONDS', '10', /^WAGERLINE_TOKEN_TTL_SECONDS: must be between 60/],
  ['WAGERLINE_TRUST_PROXY', 'proxy.local', /^WAGERLINE_TRUST_PROXY: must be off, or the proxies' addresses or CIDR ranges, comma-separated, got "proxy.local"/],
  // A hop count would believe whoever connects directly: refused.
  ['WAGERLINE_TRUST_PROXY', '2', /^WAGERLINE_TRUST_PROXY: .+got "2"/],
  ['WAGERLINE_TRUST_PROXY', '10.0.0.0/8,::1/129', /^WAGERLINE_TRUST_PROXY: .+got "::1\/129"/],
  ['WAGERLINE_TRUST_PROXY', '0', /^WAGERLINE_TRUST_PROXY: .+got "0"/],
  ['WAGERLINE_TRUST_PROXY', '10.0.0.0/33', /^WAGERLINE_TRUST_PROXY: .+got "10.0.0.0\/33"/],
  ['WAGERLINE_USER_TOKEN_CACHE_SECONDS', '61', /^WAGERLINE_USER_TOKEN_CACHE_SECONDS: must be between 0 and 60/],
  // Below the reports' own bound, it would cut a report the server still runs.
  ['WAGERLINE_DB_QUERY_TIMEOUT_MS', '60000', /^WAGERLINE_DB_QUERY_TIMEOUT_MS: must be 0 \(off\) or a whole number between 125000 and 3600000, got "60000"/],
  ['WAGERLINE_DB_QUERY_TIMEOUT_MS', '-1', /^WAGERLINE_DB_QUERY_TIMEOUT_MS: must be 0 \(off\)/],
  ['WAGERLINE_DB_KEEPALIVE_MS', '0', /^WAGERLINE_DB_KEEPALIVE_MS: must be between 1000 and 7200000/],
  // Within its own range, but not above the call bound (10 s by default): checked at start, exit 2.
  ['WAGERLINE_WALLET_LEASE_MS', '10000', /^WAGERLINE_WALLET_LEASE_MS: must be more than WAGERLINE_WALLET_TIMEOUT_MS \(10000 ms\), got 10000/],
];
for (const [name, value, message] of wrong) {
  test(`${name}=${value} is refused with a message naming the variable`, () => {
    assert.throws(() => loadConfig({ [name]: value }), (error: unknown) => error instanceof ConfigError && message.test(error.message));
  });
}

test('the README configuration table lists every setting, and only those', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const listed = [...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
  assert.deepEqual(listed, Object.keys(SETTINGS).sort());
});
