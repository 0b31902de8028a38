// The conformance checker against the reference sandbox over real HTTP: it passes against a correct
// wallet (both stores, both auth kinds, both amount units, with and without an inspection endpoint)
// and fails, naming the right check, against the sandbox in each break mode.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { BREAK_MODES, startWalletSandbox, type BreakMode, type SandboxOptions, type WalletSandbox } from '../wallet-sandbox/index.ts';
import { CHECK_NAMES, runWalletCheck, type WalletCheckOptions, type WalletCheckReport } from './index.ts';
import { markdown, table } from './report.ts';

const CC = { kind: 'client_credentials', clientId: 'check-client', clientSecret: 'check-secret' } as const;

async function check(sandboxOptions: Partial<SandboxOptions>, checkOptions: Partial<WalletCheckOptions> = {}) {
  const sandbox = await startWalletSandbox({ auth: CC, ...sandboxOptions });
  try {
    return await runWalletCheck({ url: sandbox.url, auth: CC, ...checkOptions });
  } finally {
    await sandbox.close();
  }
}

function failedNames(report: { checks: Array<{ name: string; ok: boolean }> }): string[] {
  return report.checks.filter((c) => !c.ok).map((c) => c.name).sort();
}

let db: TestDatabase;
before(async () => {
  db = await freshDatabase({ empty: true });
});
after(() => db.drop());

test('every check passes against a correct wallet: memory and postgres stores, effects judged by balances', async () => {
  for (const store of [{ kind: 'memory' }, { kind: 'postgres', pool: db.pool, schema: 'check_pg' }] as const) {
    const report = await check({ store });
    assert.deepEqual(failedNames(report), [], JSON.stringify(report.checks.filter((c) => !c.ok)));
    assert.deepEqual(report.checks.map((c) => c.name), CHECK_NAMES);
    assert.equal(report.effects, 'balances');
    assert.equal(report.passed, CHECK_NAMES.length);
  }
});

test('a wallet that requires signatures: every check passes when signed, and unsigned calls are refused', async () => {
  const signed = await check({ signingSecret: 'operator-secret' }, { signingSecret: 'operator-secret' });
  assert.deepEqual(failedNames(signed), [], JSON.stringify(signed.checks.filter((c) => !c.ok)));
  const unsigned = await check({ signingSecret: 'operator-secret' });
  assert.ok(unsigned.failed > 0);
  assert.ok(failedNames(unsigned).includes('reserve → confirm (full) → settleBet'), failedNames(unsigned).join(', '));
});

test('API keys in a custom header, amounts in integer cents, a seeded --user', async () => {
  const auth = { kind: 'api_key', apiKey: 'key-1', header: 'x-operator-key' } as const;
  const sandbox = await startWalletSandbox({ auth, amountUnit: 'cents', openingBalance: '0' });
  const userId = '6f1c7a52-3a7e-4f57-9a51-3f4c9b0c2e11';
  await sandbox.seedUser(userId, { cash: '60.00' });
  try {
    const report = await runWalletCheck({ url: sandbox.url, auth, amountUnit: 'cents', userId });
    assert.deepEqual(failedNames(report), []);
    assert.match(report.checks[0]!.detail, /not applicable/);
    const amounts = sandbox.requests().filter((r) => r.op === 'credit').map((r) => (r.body as { amount: number }).amount);
    assert.ok(amounts.includes(100), 'one dollar is sent as 100 cents');
  } finally {
    await sandbox.close();
  }
});

// docs/wallet-check.md, --user: what the run needs of the test account and what it leaves there,
// the same in both amount units and both kinds of authentication.
test('the run needs 10.00 cash and leaves the user exactly 30.70 cash and 4.00 bonus up, nothing held, as documented', async () => {
  const doc = readFileSync(new URL('../../../docs/wallet-check.md', import.meta.url), 'utf8');
  assert.match(doc, /needs \*\*10\.00 cash\*\* at the start[^|]*a net gain of exactly 30\.70 cash and 4\.00 bonus/);
  const userId = '6f1c7a52-3a7e-4f57-9a51-3f4c9b0c2e11';
  const key = { kind: 'api_key', apiKey: 'k' } as const;
  const runs = [[CC, 'dollars'], [CC, 'cents'], [key, 'dollars'], [key, 'cents']] as const;
  for (const [auth, amountUnit] of runs) {
    const sandbox = await startWalletSandbox({ auth, amountUnit, openingBalance: '0' });
    await sandbox.seedUser(userId, { cash: '10.00' });
    try {
      const report = await runWalletCheck({ url: sandbox.url, auth, amountUnit, userId });
      assert.deepEqual(failedNames(report), [], amountUnit);
      assert.deepEqual(await sandbox.balances(userId), { cash: '40.70', bonus: '4.00', reserved: '0.00' });
    } finally {
      await sandbox.close();
    }
  }
  const short = await startWalletSandbox({ auth: CC, openingBalance: '0' });
  await short.seedUser(userId, { cash: '9.99' });
  try {
    const report = await runWalletCheck({ url: short.url, auth: CC, userId });
    assert.match(report.checks.find((c) => !c.ok)!.detail, /INSUFFICIENT_FUNDS/, 'one cent less and the first reserve is refused');
  } finally {
    await short.close();
  }
});

// fetch() refuses the WHATWG "bad ports" (6000, 6665-6669, 10080, ...); delivery (undici) does
// not, so a wallet there works with wagerline and must be checkable.
test('a wallet listening on a port fetch() refuses (10080, 6000, ...) is checked', async (t) => {
  const auth = { kind: 'api_key', apiKey: 'k' } as const;
  let sandbox;
  for (const port of [10080, 6000, 6566, 6697]) {
    try {
      sandbox = await startWalletSandbox({ auth, port });
      break;
    } catch { /* taken: try the next */ }
  }
  if (!sandbox) return t.skip('no candidate port free');
  try {
    const report = await runWalletCheck({ url: sandbox.url, auth });
    assert.deepEqual(failedNames(report), []);
  } finally {
    await sandbox.close();
  }
});

/**
 * A forwarding server in front of the sandbox, over real HTTP: `balances` answers GET /balances
 * itself (a 404 to hide it, or the sandbox's answer late); everything else goes through.
 */
async function inFront(sandbox: WalletSandbox, balances: (forward: () => Promise<Response>) => Promise<Response | undefined>) {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const forward = () => fetch(`${sandbox.url}${req.url}`, {
      method: req.method, headers: req.headers as Record<string, string>, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
    });
    try {
      const upstream = req.url?.startsWith('/balances') ? await balances(forward) : await forward();
      if (!upstream) return void res.writeHead(404).end();
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(await upstream.text());
    } catch {
      res.destroy(); // a late answer after the test closed the sandbox
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await sandbox.close();
    },
  };
}

test('a wallet without GET /balances: effects are judged from the answers, and the report says so', async () => {
  const front = await inFront(await startWalletSandbox({ auth: CC }), async () => undefined);
  try {
    const report = await runWalletCheck({ url: front.url, auth: CC });
    assert.deepEqual(failedNames(report), []);
    assert.equal(report.effects, 'answers');
    assert.match(report.checks.find((c) => c.name === 'replay of credit')!.detail, /not verifiable/);
  } finally {
    await front.close();
  }
});

test('the response-time check bounds the protocol\'s calls, not the checker\'s own GET /balances read', async () => {
  const late = async (forward: () => Promise<Response>) => {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return forward();
  };
  const front = await inFront(await startWalletSandbox({ auth: CC }), late);
  try {
    // GET /balances answers after the bound: the checker judges effects by the answers instead.
    // A bound the protocol's calls keep even on a loaded machine; the first GET /balances misses it.
    const report = await runWalletCheck({ url: front.url, auth: CC, timeoutMs: 1500 });
    assert.equal(report.effects, 'answers');
    assert.deepEqual(failedNames(report), []);
    const times = report.checks.find((c) => c.name === 'response times within the bound')!;
    assert.match(times.detail, /^\d+ calls, /);
  } finally {
    await front.close();
  }
});

test('the terminal table and the Markdown report show a wallet\'s control characters as escapes', () => {
  const report = { url: 'http://127.0.0.1:1', userId: 'u', amountUnit: 'dollars', effects: 'answers', startedAt: '2026-11-26T00:00:00Z', passed: 0, failed: 1,
    checks: [{ name: 'replay of credit', ok: false, ms: 3, detail: 'HTTP 400 {"message":"\u001b[2Jgone\u0007|\nx"}' }] } as WalletCheckReport;
  const [, row] = table(report).split('\n');
  assert.match(row!, /\\x1b\[2Jgone\\x07\|\\nx/);
  assert.doesNotMatch(table(report) + markdown(report), /[\u0000-\u0009\u000b-\u001f]/);
  assert.match(markdown(report), /\\x1b\[2Jgone\\x07\\\| x/);
});

const REPLAYS = ['reserve', 'confirm', 'refundBet', 'settleBet', 'debit', 'credit'].map((op) => `replay of ${op}`);
const EXPECTED: Record<Exclude<BreakMode, 'slow'>, string[]> = {
  idempotency: [...REPLAYS, 'concurrent duplicate calls'],
  'extra-fields': ['unknown extra fields tolerated'],
  'error-shape': ['error responses in the spec shape', 'invalid token → 401 in the error shape', 'same transactionId with another amount',
    'confirm above the reserved amount refused'],
  'error-text': ['error responses in the spec shape', 'invalid token → 401 in the error shape', 'same transactionId with another amount',
    'confirm above the reserved amount refused'],
  mismatch: ['same transactionId with another amount'],
  partial: ['reserve → confirm (partial) → settleBet', 'replay of confirm', 'reserve → confirm (partial) → refundBet',
    'reserve → confirm (partial) → refundBet of a bonus bet'],
  bonus: ['bonus flag', 'bonus refund, reversal and cash-out', 'reserve → confirm (partial) → refundBet of a bonus bet'],
  auth: ['invalid token → 401 in the error shape'],
  race: ['concurrent duplicate calls'],
  'transaction-types': ['credit (betpartialrefund)', 'debit (betwincancelled)', 'settleBet → debit (betwincancelled) → refundBet (a winner cancelled)',
    'bonus refund, reversal and cash-out'],
  'token-shape': ['token endpoint'],
  'whole-units': ['reserve → confirm (partial) → settleBet'],
  'bonus-winnings': ['bonus refund, reversal and cash-out'],
  'settle-once': ['reserve → confirm → settleBet 0.00 (a losing bet)', 'settleBet twice (an amended result pays the difference)',
    'equal calls under two transactionIds (both count)'],
};

for (const mode of BREAK_MODES.filter((m): m is Exclude<BreakMode, 'slow'> => m !== 'slow')) {
  test(`--break ${mode}: the checker fails exactly ${EXPECTED[mode].join(', ')}`, async () => {
    const report = await check({ breaks: [mode] });
    assert.deepEqual(failedNames(report), [...EXPECTED[mode]].sort());
  });
}

test('--break race with the postgres store (no lock between lookup and apply) is caught too', async () => {
  const report = await check({ breaks: ['race'], store: { kind: 'postgres', pool: db.pool, schema: 'check_race' } });
  assert.deepEqual(failedNames(report), ['concurrent duplicate calls']);
});

test('--break slow: answers beyond the bound fail the response-time check, and the checker stops waiting', async () => {
  const report = await check({ breaks: ['slow'], slowMs: 400 }, { timeoutMs: 100 });
  const times = report.checks.find((c) => c.name === 'response times within the bound')!;
  assert.equal(times.ok, false);
  assert.match(times.detail, /no answer within the bound/);
  assert.ok(report.checks.some((c) => c.detail.includes('not sent')), 'after 3 calls without an answer the rest are not sent');
  assert.deepEqual(report.checks.filter((c) => /stopped answering|did not answer/.test(c.detail)).map((c) => c.name), [], 'said as "not sent", not as the wallet\'s silence');
  assert.equal(report.checks.find((c) => c.name === 'token endpoint')!.ok, true, 'the token endpoint is not slowed');
});
