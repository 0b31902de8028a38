// The conformance checker against wallets that are wrong in one way the break modes do not cover
// — or strict in a way wagerline satisfies. Each wallet is the reference sandbox behind a small
// proxy on 127.0.0.1 that changes one behaviour: a wrong one must fail a check (no false pass), a
// strict but conforming one must pass every check (no false fail).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAgainst, failedNames, failures, refusal, wrongWallet } from '../../../test/helpers/wrong-wallet.ts';
import { runWalletCheck } from './index.ts';

// wagerline sends refundBet after confirm for every scratched runner, abandoned race, refund
// verdict and cancel (docs/betting.md, docs/settlement-running.md, docs/bets-admin.md).
test('a wallet that answers refundBet of a confirmed bet with a success but returns nothing fails the refund checks', async () => {
  const confirmed = new Set<string>();
  const report = await checkAgainst(await wrongWallet(
    (op, body) => (op === 'refundBet' && confirmed.has(String(body?.betId)) ? { answer: { status: 200, body: { success: true } } } : undefined),
    (op, body, status) => { if (op === 'confirm' && status === 200) confirmed.add(String(body?.betId)); },
  ));
  assert.deepEqual(failedNames(report), [
    'bonus refund, reversal and cash-out',
    'reserve → confirm (partial) → refundBet',
    'reserve → confirm (partial) → refundBet of a bonus bet',
    'settleBet → debit (betwincancelled) → refundBet (a winner cancelled)',
  ]);
});

// docs/wallet.md, "Which balance each call of a bonus bet moves": credit betpartialrefund → bonus.
test('a wallet that pays a bonus bet\'s credit betpartialrefund into cash fails the bonus check', async () => {
  const report = await checkAgainst(await wrongWallet((op, body) =>
    (op === 'credit' && body?.transactionType === 'betpartialrefund' && body.bonusFlag === true ? { forward: { ...body, bonusFlag: false } } : undefined)));
  assert.deepEqual(failedNames(report), ['bonus refund, reversal and cash-out']);
});

// ... and debit betwincancelled ← cash. The sandbox's bonus-winnings mode takes every reversal and
// cash-out of a bonus bet from bonus; the proxy makes all but betwincancelled right again.
test('a wallet that takes a bonus bet\'s debit betwincancelled from bonus fails the bonus check', async () => {
  const report = await checkAgainst(await wrongWallet(
    (_op, body) => (body?.bonusFlag === true && (body.transactionType === 'deductbetwin' || body.transactionType === 'cashout')
      ? { forward: { ...body, bonusFlag: false } } : undefined),
    undefined,
    { breaks: ['bonus-winnings'] },
  ));
  assert.deepEqual(failedNames(report), ['bonus refund, reversal and cash-out']);
  assert.match(failures(report)[0]!, /after debit betwincancelled 2\.00 of a bonus bet/);
});

// docs/wallet.md: "Every call also carries Idempotency-Key: <transactionId>". A wallet may rely on
// it; wagerline's own client (src/modules/wallet/delivery/http-client.ts) always sends it.
test('a wallet that requires the Idempotency-Key header wagerline always sends passes', async () => {
  const report = await checkAgainst(await wrongWallet((_op, body, req) => {
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && key === body?.transactionId) return undefined;
    return refusal(400, 'IDEMPOTENCY_KEY', 'Idempotency-Key header missing or not the transactionId');
  }));
  assert.deepEqual(failures(report), []);
});

// Delivery writes dollar amounts with two decimals (10.00, 6.25): a wallet parsing the text may rely on it.
test('a wallet that requires dollar amounts written with two decimals, as delivery writes them, passes', async () => {
  const report = await checkAgainst(await wrongWallet((_op, _body, _req, raw) =>
    (/"amount":\d+\.\d\d[,}]/.test(raw) ? undefined : refusal(400, 'VALIDATION_ERROR', `amount must have two decimals: ${raw.slice(0, 200)}`))));
  assert.deepEqual(failures(report), []);
});

// wagerline sends credit only for bets it reserved and confirmed (cash-out, adjustment, partial
// refund) and debit only for bets it settled (a reversal of winnings paid). A wallet that refuses
// them otherwise works with wagerline, so the checker must not fail it.
test('a wallet that refuses credit for a bet not confirmed, and debit for a bet not settled, passes', async () => {
  const confirmed = new Set<string>();
  const settled = new Set<string>();
  const report = await checkAgainst(await wrongWallet(
    (op, body) => {
      const betId = String(body?.betId);
      if (op === 'credit' && !confirmed.has(betId)) return refusal(404, 'UNKNOWN_BET', `bet ${betId} is not confirmed`);
      if (op === 'debit' && !settled.has(betId)) return refusal(409, 'BET_STATE_CONFLICT', `bet ${betId} is not settled`);
      return undefined;
    },
    (op, body, status) => {
      if (status !== 200) return;
      if (op === 'confirm') confirmed.add(String(body?.betId));
      if (op === 'settleBet') settled.add(String(body?.betId));
    },
  ));
  assert.deepEqual(failures(report), []);
});

// spec 2.4: settleBet credits winnings "to the client's cash balance", a bonus bet's included.
test('a wallet that pays a bonus bet\'s settleBet into bonus fails the bonus checks', async () => {
  const report = await checkAgainst(await wrongWallet((op, body) => (op === 'settleBet' && body?.bonusFlag === true
    ? { op: 'credit', forward: { ...body, transactionType: 'adjustreversetransaction' } } : undefined)));
  assert.deepEqual(failedNames(report), ['bonus flag', 'bonus refund, reversal and cash-out']);
  assert.match(failures(report)[0]!, /after settleBet of a bonus bet \(winnings go to cash\): balances moved cash -1\.00, bonus \+3\.00/);
});

// spec 3: confirm and refundBet come only after a successful reserve. A wallet that takes them for
// a bet it never reserved would pay a refund of money it never held.
test('a wallet that accepts refundBet or confirm of a bet never reserved fails the error-shape check, naming the call', async () => {
  for (const accepted of ['refundBet', 'confirm']) {
    const reserved = new Set<string>();
    const report = await checkAgainst(await wrongWallet(
      (op, body) => (op === accepted && !reserved.has(String(body?.betId)) ? { answer: { status: 200, body: { success: true } } } : undefined),
      (op, body, status) => { if (op === 'reserve' && status === 200) reserved.add(String(body?.betId)); },
    ));
    assert.deepEqual(failedNames(report), ['error responses in the spec shape'], accepted);
    assert.match(failures(report)[0]!, new RegExp(`${accepted} of a bet never reserved: expected a 4xx error, got HTTP 200`));
  }
});

// spec 2.4: "the operator must tolerate extra fields", on every call: a wallet strict on refundBet
// alone would refuse every refund (scratched runner, abandoned race) once wagerline adds a field.
test('a wallet that refuses unknown fields on refundBet only fails the extra-fields check', async () => {
  const known = new Set(['transactionId', 'betId', 'userId', 'bonusFlag', 'amount']);
  const report = await checkAgainst(await wrongWallet((op, body) => (op === 'refundBet' && Object.keys(body ?? {}).some((k) => !known.has(k))
    ? refusal(400, 'VALIDATION_ERROR', 'unknown field') : undefined)));
  assert.deepEqual(failedNames(report), ['unknown extra fields tolerated']);
  assert.match(failures(report)[0]!, /refundBet with unknown fields: expected a 2xx/);
});

// spec 2.4: confirm is the "accepted amount of the reserved funds". A wallet that confirms more than
// it held takes money the user never saw reserved (the hold was the bet's whole authorisation).
test('a wallet that accepts a confirm above the reserved amount fails the check of it', async () => {
  const held = new Map<string, number>();
  const report = await checkAgainst(await wrongWallet((op, body) => {
    const betId = String(body?.betId);
    if (op === 'reserve') held.set(betId, Number(body?.amount));
    if (op === 'confirm' && Number(body?.amount) > (held.get(betId) ?? Infinity)) return { forward: { ...body, amount: held.get(betId) } };
    return undefined;
  }));
  assert.deepEqual(failedNames(report), ['confirm above the reserved amount refused']);
  assert.match(failures(report)[0]!, /confirm of 3\.00 on a reserve of 2\.00 .*must be refused: expected a 4xx error, got HTTP 200/);
});

// A wallet that spots duplicates by what a call says (bet, operation, amount) instead of by its
// transactionId swallows real money: two adjustments of 1.00 on one bet, or a result that flips
// back (settleBet 3.00, debit deductbetwin 3.00, settleBet 3.00 again) — both are wagerline's.
test('a wallet that takes an equal call under another transactionId as a replay fails the check of equal calls', async () => {
  const firstId = new Map<string, string>();
  const report = await checkAgainst(await wrongWallet((op, body) => {
    const key = [op, body?.betId, body?.amount, body?.transactionType].join(':');
    const id = String(body?.transactionId);
    if (!firstId.has(key)) firstId.set(key, id);
    return firstId.get(key) === id ? undefined : { answer: { status: 200, body: { success: true } } };
  }));
  assert.deepEqual(failedNames(report), ['equal calls under two transactionIds (both count)']);
  assert.match(failures(report)[0]!, /after a second credit adjustreversetransaction of 1\.00 under its own transactionId.*expected cash \+2\.00/);
});

// wagerline reads a 2xx without success: true as an unknown outcome and asks again; a refusal must
// be a 4xx to be final (docs/wallet.md, Responses). A wallet answering its refusals 200 fails every
// check that expects one, saying what came back.
test('a wallet that answers its refusals 200 {success: false, …} fails every check expecting a refusal', async () => {
  const report = await checkAgainst(await wrongWallet(() => undefined, (op, _body, status, text) =>
    (op !== 'auth/token' && status >= 400 ? { status: 200, body: { success: false, ...(JSON.parse(text) as object) } } : undefined)));
  assert.deepEqual(failedNames(report), ['confirm above the reserved amount refused', 'error responses in the spec shape',
    'invalid token → 401 in the error shape', 'same transactionId with another amount']);
  for (const f of failures(report)) assert.match(f, /(expected a 4xx error|must be refused with 401[^,]*), got HTTP 200 \{"success":false/);
});

// wagerline renews a wallet token only on a 401 (docs/wallet.md): a wallet refusing a bearer token
// it does not know with 403 would have every call after its tokens expire refused until parked.
// An API-key wallet may answer 401 or 403, not another 4xx (it would read as a refused transaction).
test('a bad credential answered 403 with client credentials, or 400 with an API key, fails saying what is required', async () => {
  const invalid = (status: number) => refusal(status, 'NO_ACCESS', 'credential refused');
  const cc = await checkAgainst(await wrongWallet((_op, _body, req) =>
    (req.headers.authorization === 'Bearer wallet-check-invalid-token' ? invalid(403) : undefined)));
  assert.deepEqual(failures(cc), ['invalid token → 401 in the error shape: a bearer token the wallet does not know must be refused '
    + 'with 401 (spec 7.2: 401 for an invalid token; wagerline renews its token only on a 401), got HTTP 403 '
    + '{"message":"credential refused","code":"NO_ACCESS","statusCode":403}']);
  const key = { kind: 'api_key', apiKey: 'operator-key' } as const;
  const wallet = await wrongWallet((_op, _body, req) => (req.headers['x-api-key'] === key.apiKey ? undefined : invalid(400)), undefined, { auth: key });
  try {
    const report = await runWalletCheck({ url: wallet.url, auth: key });
    assert.deepEqual(failedNames(report), ['invalid token → 401 in the error shape']);
    assert.match(failures(report)[0]!, /a wrong API key must be refused with 401 or 403 \(spec 5\.3 and 7\.2\), got HTTP 400 /);
  } finally {
    await wallet.close();
  }
});
