// The real commands, as an operator runs them: `bin/wagerline wallet-sandbox` as a child process
// and `bin/wagerline wallet-check` against it.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli, startCli } from '../../../test/helpers/cli.ts';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { freePort } from '../../../test/helpers/net.ts';

let dir: string;
let db: TestDatabase;
const children: ChildProcess[] = [];
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-check-'));
  db = await freshDatabase({ empty: true });
});
after(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
});

function stopped(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

test('wallet-sandbox --memory prints its URL and generated credentials; wallet-check passes and writes HTML and Markdown reports', async () => {
  const { child, first } = await startCli(['wallet-sandbox', '--memory', '--port', '0'], {});
  children.push(child);
  assert.deepEqual(Object.keys(first).sort(), ['amount_unit', 'auth', 'breaks', 'client_id', 'client_secret', 'opening_balance', 'opening_bonus', 'pid', 'store', 'url']);
  assert.equal(first.store, 'memory');
  const args = ['wallet-check', '--url', first.url, '--auth', 'client_credentials', '--client-id', first.client_id, '--client-secret', first.client_secret];
  const htmlFile = path.join(dir, 'report.html');
  const run = await runCli([...args, '--report', htmlFile], {});
  assert.equal(run.code, 0, run.stderr);
  const out = run.json();
  assert.deepEqual(Object.keys(out).sort(), ['amount_unit', 'checks', 'effects', 'failed', 'passed', 'report', 'started_at', 'url', 'user_id']);
  assert.equal(out.amount_unit, 'dollars');
  assert.match(out.user_id, /^[0-9a-f-]{36}$/);
  assert.ok(!Number.isNaN(Date.parse(out.started_at)), out.started_at);
  assert.equal(out.failed, 0);
  assert.equal(out.passed, out.checks.length);
  assert.ok(out.checks.every((c: { name: string; ok: boolean; detail: string; ms: number }) => c.ok && typeof c.ms === 'number' && c.detail));
  assert.match(run.stderr, /^PASS {2}replay of credit/m);
  assert.match(readFileSync(htmlFile, 'utf8'), /<h1>Wallet conformance report<\/h1>[\s\S]*<td>concurrent duplicate calls<\/td>/);
  const mdFile = path.join(dir, 'report.md');
  assert.equal((await runCli([...args, '--report', mdFile], {})).code, 0);
  assert.match(readFileSync(mdFile, 'utf8'), /^\| PASS \| same transactionId with another amount \|/m);
  child.kill('SIGTERM');
  assert.equal(await stopped(child), 0);
});

test('wallet-check exits 1 and names the failed checks against `wallet-sandbox --break idempotency` (API key)', async () => {
  const { child, first } = await startCli(['wallet-sandbox', '--memory', '--port', '0', '--auth', 'api_key', '--api-key-header', 'x-key', '--break', 'idempotency'], {});
  children.push(child);
  assert.equal(first.api_key_header, 'x-key');
  const run = await runCli(['wallet-check', '--url', first.url, '--auth', 'api_key', '--api-key', first.api_key, '--api-key-header', 'x-key'], {});
  assert.equal(run.code, 1);
  const failed = run.json().checks.filter((c: { ok: boolean }) => !c.ok).map((c: { name: string }) => c.name);
  assert.ok(failed.includes('replay of credit'), failed.join(', '));
  assert.match(run.stderr, /^FAIL {2}replay of credit/m);
  child.kill('SIGINT');
  assert.equal(await stopped(child), 0);
});

test('wallet-sandbox without --memory keeps its state in its own schema of the configured PostgreSQL', async () => {
  const { child, first } = await startCli(['wallet-sandbox', '--port', '0', '--client-id', 'op', '--client-secret', 's3cret', '--opening-balance', '75'], { DATABASE_URL: db.url });
  children.push(child);
  assert.deepEqual([first.store, first.schema, first.client_id, first.client_secret, first.opening_balance], ['postgres', 'wallet_sandbox', 'op', 's3cret', '75']);
  const run = await runCli(['wallet-check', '--url', first.url, '--client-id', 'op', '--client-secret', 's3cret'], {});
  assert.equal(run.code, 0, run.stderr);
  const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM wallet_sandbox.transactions');
  assert.ok(rows[0].n > 20);
  child.kill('SIGTERM');
  assert.equal(await stopped(child), 0);
});

test('wallet-sandbox --seed, --opening-bonus, --latency-ms and --fail-rate', async () => {
  const userId = '6f1c7a52-3a7e-4f57-9a51-3f4c9b0c2e11';
  const { child, first } = await startCli(['wallet-sandbox', '--memory', '--port', '0', '--auth', 'api_key', '--api-key', 'k',
    '--seed', `${userId}=50:10.5`, '--opening-bonus', '2', '--latency-ms', '200', '--fail-rate', '1'], {});
  children.push(child);
  assert.deepEqual(first.seeded, [userId]);
  const headers = { 'x-api-key': 'k', 'content-type': 'application/json' };
  const balances = async (id: string) => (await fetch(`${first.url}/balances/${id}`, { headers })).json();
  assert.deepEqual(await balances(userId), { userId, known: true, cash: '50.00', bonus: '10.50', reserved: '0.00' });
  const stranger = '0e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a';
  assert.deepEqual(await balances(stranger), { userId: stranger, known: false, cash: '1000.00', bonus: '2.00', reserved: '0.00' });
  const started = performance.now();
  const res = await fetch(`${first.url}/credit`, {
    method: 'POST', headers,
    body: JSON.stringify({ transactionId: '3f1c1f5e-8a39-4c1e-9a49-1f0f7c2f5a11', betId: stranger, userId, bonusFlag: false, amount: 1, transactionType: 'cashout' }),
  });
  assert.ok(performance.now() - started >= 190, 'answered after the configured latency');
  assert.deepEqual([res.status, ((await res.json()) as { code: string }).code], [503, 'SIMULATED_FAILURE']);
  assert.equal((await balances(userId)).cash, '50.00');
  const bad = await runCli(['wallet-sandbox', '--memory', '--seed', 'not-a-uuid=5'], {});
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--seed/);
  child.kill('SIGTERM');
  assert.equal(await stopped(child), 0);
});

test('bad arguments are one-line errors with a non-zero exit', async () => {
  const noSecret = await runCli(['wallet-check', '--url', 'http://127.0.0.1:1', '--client-id', 'x'], {});
  assert.equal(noSecret.code, 2);
  assert.match(noSecret.stderr, /needs --client-id and --client-secret/);
  const badReport = await runCli(['wallet-check', '--url', 'http://127.0.0.1:1', '--auth', 'api_key', '--api-key', 'k', '--report', 'x.pdf'], {});
  assert.equal(badReport.code, 2);
  // Refused before any check runs (they move money): no folder for the report.
  const noFolder = await runCli(['wallet-check', '--url', 'http://127.0.0.1:1', '--auth', 'api_key', '--api-key', 'k', '--report', '/nonexistent-folder/r.md'], {});
  assert.deepEqual([noFolder.code, noFolder.stdout], [2, '']);
  assert.match(noFolder.stderr, /--report \/nonexistent-folder\/r\.md cannot be written \(ENOENT\)/);
  const badBreak = await runCli(['wallet-sandbox', '--memory', '--break', 'nonsense'], {});
  assert.notEqual(badBreak.code, 0);
  assert.match(badBreak.stderr, /unknown break mode "nonsense"/);
  const badSchema = await runCli(['wallet-sandbox', '--schema', 'Bad-Name'], {});
  assert.equal(badSchema.code, 2, 'a usage error, before any database is opened');
  assert.match(badSchema.stderr, /--schema <name>' argument 'Bad-Name' is invalid/);
  const tooLong = await runCli(['wallet-check', '--url', 'http://127.0.0.1:1', '--client-id', 'a', '--client-secret', 'b', '--timeout-ms', '99999999999999999999'], {});
  assert.deepEqual([tooLong.code, tooLong.stdout], [2, ''], 'beyond what a timer holds: a usage error, not every check failed');
  assert.match(tooLong.stderr, /--timeout-ms.*at most 2147483647/);
  assert.equal((await runCli(['wallet-check', '--url', 'http://127.0.0.1:1', '--client-id', 'a', '--client-secret', 'b', '--timeout-ms', '2147483648'], {})).code, 2);
  // tenant set-wallet's rules: the paths are appended to the URL, credentials have options of their own.
  for (const [url, why] of [['http://127.0.0.1:1/api?x=1', /query string or fragment/], ['http://127.0.0.1:1/api#top', /query string or fragment/],
    ['http://127.0.0.1:1/api?', /query string or fragment/], ['http://user:pw@127.0.0.1:1', /user name or password/],
    // Not a URL: quoted without what may be its credentials.
    ['http://user:s3cret@wallet example.com/api?key=k3y', /"http:\/\/\[Redacted\]@wallet example\.com\/api\?key=\[Redacted\]" is not a URL/]] as const) {
    const run = await runCli(['wallet-check', '--url', url, '--client-id', 'a', '--client-secret', 'b'], {});
    assert.deepEqual([run.code, run.stdout], [2, ''], url);
    assert.match(run.stderr, why);
    assert.doesNotMatch(run.stderr, /s3cret|k3y/);
  }
});

test('wallet-check sends to any port, those fetch() refuses (port 1) included: nothing answers there, exit 3', async () => {
  const run = await runCli(['wallet-check', '--url', 'http://127.0.0.1:1', '--auth', 'api_key', '--api-key', 'k'], {});
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, /nothing answers at http:\/\/127\.0\.0\.1:1: connection refused/);
});

test('wallet-check against a URL where nothing answers: one line, no --help hint (not a usage mistake), exit 3, nothing on stdout', async () => {
  const port = await freePort(); // free a moment ago: connections are refused
  for (const auth of [['--client-id', 'id', '--client-secret', 'secret'], ['--auth', 'api_key', '--api-key', 'key']]) {
    const run = await runCli(['wallet-check', '--url', `http://127.0.0.1:${port}`, ...auth], {});
    assert.equal(run.code, 3, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`^wagerline: nothing answers at http://127\\.0\\.0\\.1:${port}: connection refused \\(ECONNREFUSED\\) on (POST /auth/token|GET /balances/[0-9a-f-]+), the first call; no check was run\\n$`));
  }
});

// --help is what an operator reads first: the exit codes and what the run needs of the test user
// must say what docs/wallet-check.md says.
test('wallet-check --help names every exit code and the cash the test user needs and gains', async () => {
  const run = await runCli(['wallet-check', '--help'], {});
  assert.equal(run.code, 0, run.stderr);
  const help = run.stdout.replace(/\s+/g, ' ');
  assert.match(help, /exit 0 only if all pass, 1 if one fails, 2 on a usage error, 3 when nothing answers at --url/);
  assert.match(help, /needs 10\.00 cash; the run leaves it 30\.70 cash and 4\.00 bonus up/);
});
