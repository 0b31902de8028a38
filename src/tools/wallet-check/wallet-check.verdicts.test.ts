// The checker's verdicts on wallets that work with wagerline but differ from the sandbox in a way
// wagerline's caller (src/modules/wallet/delivery) accepts — each must pass, a false FAIL costs the
// operator days — and on wallets whose fault only some amounts show, which must fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAgainst, CC, failedNames, failures, wrongWallet, type WrongWallet } from '../../../test/helpers/wrong-wallet.ts';
import { runWalletCheck } from './index.ts';

// wagerline takes any 2xx with success: true as a success (docs/wallet.md, Responses); many
// wallets answer a new transaction 201 and its replay 200 with a code saying it was a duplicate.
test('a wallet that answers a replay 200 {success: true, code: DUPLICATE} after a first 201 passes', async () => {
  const seen = new Set<string>();
  const report = await checkAgainst(await wrongWallet(() => undefined, (_op, body, status, text) => {
    if (status !== 200 || (JSON.parse(text) as { success?: unknown }).success !== true) return undefined;
    const id = String(body?.transactionId);
    if (seen.has(id)) return { status: 200, body: { success: true, code: 'DUPLICATE_TRANSACTION', message: 'already processed' } };
    seen.add(id);
    return { status: 201, body: { success: true } };
  }));
  assert.deepEqual(failures(report), []);
});

// ... but a replay refused (409 DUPLICATE, or a 200 with success: false) would park wagerline's
// retried call as failed while the wallet holds the money: each replay check must fail.
test('a wallet that answers a replay 409 DUPLICATE, or 200 {success: false}, fails every replay check', async () => {
  for (const status of [409, 200]) {
    const seen = new Set<string>();
    const report = await checkAgainst(await wrongWallet(() => undefined, (op, body, upstream) => {
      const id = `${op}:${String(body?.transactionId)}`;
      if (upstream !== 200 || !seen.has(id)) return void seen.add(id);
      return { status, body: status === 200 ? { success: false } : { message: 'duplicate', code: 'DUPLICATE', statusCode: 409 } };
    }));
    const replays = failures(report).filter((f) => f.startsWith('replay of'));
    assert.equal(replays.length, 6, replays.join('\n'));
    for (const f of replays) assert.match(f, new RegExp(`must succeed again .*got HTTP ${status}`));
  }
});

/** A wallet that reads dollar amounts as floats and converts them to cents with `round` (floor, ceil). */
function floatCents(round: (x: number) => number) {
  return wrongWallet((_op, body) =>
    (body && typeof body.amount === 'number' ? { forward: { ...body, amount: round(body.amount * 100) / 100 } } : undefined));
}

// 0.50, 0.25 and 0.75 are exact in binary: only amounts such as 4.35 (434.99999999999994 cents as a
// float) show a wallet that truncates amount * 100 instead of rounding it or reading the decimal text.
test('a wallet that truncates amount * 100 (floor or ceil) fails the partial flow, which says by how much', async () => {
  for (const round of [Math.floor, Math.ceil]) {
    const report = await checkAgainst(await floatCents(round));
    assert.deepEqual(failedNames(report).filter((n) => n.includes('(partial) → settleBet')), ['reserve → confirm (partial) → settleBet'], round.name);
    assert.match(failures(report).join('\n'), /\(partial\) → settleBet: after (reserve|confirm|settleBet)[^:]*: balances moved cash -?\+?[\d.]+, bonus \+0\.00; expected cash/, round.name);
  }
});

// A wallet rotates its signing keys or restarts: issued tokens stop working before expires_in.
// wagerline drops a refused token, fetches another and sends the call again (docs/wallet.md).
test('a wallet that revokes its tokens mid-run passes: the checker renews the token on a 401, as wagerline does', async () => {
  let wallet: WrongWallet | undefined;
  let calls = 0;
  wallet = await wrongWallet(() => {
    calls += 1;
    // Every 40 calls: more than the 16 of the concurrent check and their retries, which a second
    // revocation would refuse again (as it would wagerline's).
    if (calls % 40 === 0) wallet!.sandbox.revokeTokens();
    return undefined;
  });
  const report = await checkAgainst(wallet);
  assert.deepEqual(failures(report), []);
  assert.ok(calls > 100, `${calls} calls`);
});

// ... also when the token is revoked while 16 calls are in flight (the concurrent check): every
// refused call renews and is sent again, however the refusals interleave.
test('tokens revoked while the concurrent duplicates are in flight: every refused call is sent again', async () => {
  let wallet: WrongWallet | undefined;
  const seen = new Set<string>();
  wallet = await wrongWallet((op, body) => {
    const id = String(body?.transactionId);
    if (op === 'credit' && body?.transactionType === 'adjustreversetransaction' && !seen.has(id)) wallet!.sandbox.revokeTokens();
    seen.add(id);
    return undefined;
  });
  const report = await checkAgainst(wallet);
  assert.deepEqual(failures(report), []);
});

// A token shorter-lived than a slow run: expired tokens are refused with 401 INVALID_TOKEN.
test('a wallet whose tokens expire during the run passes: the checker renews them as wagerline does', async () => {
  // The sandbox's clock jumps two hours every 60 calls: every token it issued has expired by then.
  // (A token lives longer than the 16 calls of the concurrent check and their retries, as it must
  // for wagerline too: a retry with a token already expired again is refused.)
  let calls = 0;
  const clock = () => new Date(Date.UTC(2026, 0, 1) + Math.floor(calls / 60) * 7_200_000);
  const report = await checkAgainst(await wrongWallet(() => void (calls += 1), undefined, { now: clock }));
  assert.deepEqual(failures(report), []);
  assert.ok(calls > 100, `${calls} calls`);
});

// A wallet keeping money in floating point reports balances such as 989.7999999999998: the
// failure must say so, not that GET /balances "did not answer".
test('a wallet whose balances drift off whole cents mid-run fails with the balance it reported', async () => {
  let calls = 0;
  const report = await checkAgainst(await wrongWallet(() => void (calls += 1), undefined, {},
    (body) => (calls > 3 ? { ...body, cash: Number(body.cash) - 0.1 - 0.2 + 0.3 } : body)));
  const first = failures(report)[0] ?? '';
  assert.doesNotMatch(first, /did not answer|stopped answering/);
  assert.match(first, /GET \/balances answered cash \d+\.\d{3,}.*not whole cents/);
});

// A NUMERIC(18,4) ledger answers 1000.0000: the same amounts, so effects are still judged by balances.
test('a wallet reporting balances with zeros past the cents (1000.0000) is judged by its balances and passes', async () => {
  const report = await checkAgainst(await wrongWallet(() => undefined, undefined, {},
    (body) => ({ ...body, cash: `${String(body.cash)}00`, bonus: `${String(body.bonus)}00` })));
  assert.deepEqual(failures(report), []);
});

// The tenant's unit and the wallet's differ: 10.00 dollars read as 10 cents (or the reverse).
test('a wallet reading the amounts in the other unit fails with a hint to check --amount-unit', async () => {
  const report = await checkAgainst(await wrongWallet((_op, body) =>
    (body && typeof body.amount === 'number' ? { forward: { ...body, amount: Math.round(body.amount) / 100 } } : undefined)));
  assert.match(failures(report).join('\n'), /expected cash -10\.00, bonus \+0\.00 — 100 times off: .*--amount-unit/);
});

// wagerline (and tenant set-wallet) take a token from any 2xx with an access_token, and never read
// scope; RFC 6749 lets a server leave scope out when it is the one asked for.
test('a token endpoint answering 201 without scope passes; one without expires_in still fails', async () => {
  const reshape = (drop: string, status: number) => wrongWallet(() => undefined, (op, _body, upstream, text) => {
    if (op !== 'auth/token' || upstream !== 200) return undefined;
    const { [drop]: _dropped, ...rest } = JSON.parse(text) as Record<string, unknown>;
    return { status, body: rest };
  });
  assert.deepEqual(failures(await checkAgainst(await reshape('scope', 201))), []);
  const noExpiry = failures(await checkAgainst(await reshape('expires_in', 200)));
  assert.equal(noExpiry.length, 1);
  assert.match(noExpiry[0]!, /^token endpoint: .*lacks expires_in/);
});

// The checker gives bonus with a credit of bonusFlag true on a cash bet: a call wagerline never
// sends (every call of a bet carries its bonusFlag). A wallet that refuses such a mismatch works
// with wagerline: the bonus checks then stake the test user's own bonus.
test('a wallet refusing a credit or debit whose bonusFlag differs from its bet\'s passes, staking the user\'s own bonus', async () => {
  const bonusOf = new Map<string, boolean>();
  const userId = '6f1c7a52-3a7e-4f57-9a51-3f4c9b0c2e11';
  const wallet = await wrongWallet((op, body) => {
    const betId = String(body?.betId);
    if (op === 'reserve' && !bonusOf.has(betId)) bonusOf.set(betId, body?.bonusFlag === true);
    if ((op === 'credit' || op === 'debit') && bonusOf.has(betId) && bonusOf.get(betId) !== body?.bonusFlag) {
      return { answer: { status: 409, body: { message: 'bonusFlag differs from the bet\'s', code: 'BONUS_FLAG_MISMATCH', statusCode: 409 } } };
    }
    return undefined;
  });
  const short = '0e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a';
  await wallet.sandbox.seedUser(userId, { cash: '50.00', bonus: '5.00' });
  await wallet.sandbox.seedUser(short, { cash: '50.00', bonus: '4.99' });
  try {
    const report = await runWalletCheck({ url: wallet.url, auth: CC, userId });
    assert.deepEqual(failures(report), []);
    assert.equal((await wallet.sandbox.balances(userId)).bonus, '2.00', 'the bonus bets spend 3.00 of the user\'s own bonus, as documented');
    const lacking = failures(await runWalletCheck({ url: wallet.url, auth: CC, userId: short }));
    assert.equal(lacking.length, 1, lacking.join('\n'));
    assert.match(lacking[0]!, /a call wagerline never sends — got HTTP 409 .*give the test user 5\.00 bonus or more/);
  } finally {
    await wallet.close();
  }
});

// spec 5.3 leaves the API-key option's shape unshown, and 7.2 shows 401 only as the sample status
// of an invalid token: a wallet that refuses a wrong API key with 403 conforms (tenant set-wallet
// takes a 401 or a 403 as the key refused too). There is no token for wagerline to renew.
test('an API-key wallet that refuses a wrong or missing key with 403 in the error shape passes', async () => {
  const key = { kind: 'api_key', apiKey: 'operator-key' } as const;
  let refused = 0;
  const wallet = await wrongWallet((_op, _body, req) => {
    if (req.headers['x-api-key'] === key.apiKey) return undefined;
    refused += 1;
    return { answer: { status: 403, body: { message: 'API key not accepted', code: 'FORBIDDEN', statusCode: 403 } } };
  }, undefined, { auth: key });
  try {
    const report = await runWalletCheck({ url: wallet.url, auth: key });
    assert.equal(report.effects, 'balances');
    assert.deepEqual(failures(report), []);
    assert.equal(refused, 1, 'the check sent one call with a wrong key');
    assert.match(report.checks.find((c) => c.name.startsWith('invalid token'))!.detail, /^403 FORBIDDEN/);
  } finally {
    await wallet.close();
  }
});

/**
 * A wallet that locks a transactionId while it handles it and answers a duplicate arriving then
 * with `status` (and nothing applied): 503 asks the caller to come back, which wagerline does with
 * the same transactionId (5xx: docs/wallet-delivery.md, retry schedule); the retry gets the stored answer.
 */
async function lockingWallet(status: number) {
  const inFlight = new Set<string>();
  let busy = 0;
  const wallet = await wrongWallet((op, body) => {
    const id = `${op}:${String(body?.transactionId)}`;
    if (!inFlight.has(id)) return void inFlight.add(id);
    busy += 1;
    return { answer: { status, body: { message: 'transaction in progress, retry', code: 'IN_PROGRESS', statusCode: status } } };
  }, (op, body) => void inFlight.delete(`${op}:${String(body?.transactionId)}`), { latencyMs: 20 });
  return { wallet, busy: () => busy };
}

test('a wallet that answers 503 to a duplicate sent while its transactionId is in flight passes: the checker retries it as wagerline would', async () => {
  const { wallet, busy } = await lockingWallet(503);
  const report = await checkAgainst(wallet);
  assert.deepEqual(failures(report), []);
  assert.ok(busy() >= 2, `${busy()} duplicates answered 503`);
  assert.match(report.checks.find((c) => c.name === 'concurrent duplicate calls')!.detail, /after a retry of an answer wagerline retries/);
  assert.equal(new Set((await wallet.sandbox.effects()).values()).size, 1, 'every transaction took effect once');
});

// ... but a 409 is final for wagerline: the call would be parked failed while the wallet holds it.
test('a wallet that answers 409 to a duplicate sent while its transactionId is in flight fails the concurrent check', async () => {
  const { wallet } = await lockingWallet(409);
  const report = await checkAgainst(wallet);
  assert.deepEqual(failedNames(report), ['concurrent duplicate calls']);
  assert.match(failures(report)[0]!, /got HTTP 409 .*IN_PROGRESS/);
});
