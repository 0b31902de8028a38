// The sandbox's authentication kinds, scripted faults, random failures and amount units, over
// real HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SANDBOX_CODES, startWalletSandbox, type WalletSandbox } from './index.ts';
import { BREAK_MODES } from './types.ts';
import { bearer, call, TEST_CLIENT as CC } from '../../../test/helpers/sandbox-http.ts';

/** A call that needs no earlier one: the reserve of a new bet (a credit needs a bet taken first). */
function reserve(amount: number, userId = randomUUID()) {
  return { transactionId: randomUUID(), betId: randomUUID(), userId, bonusFlag: false, amount, token: 't', metadata: {} };
}

async function withSandbox(options: Partial<Parameters<typeof startWalletSandbox>[0]>, fn: (s: WalletSandbox) => Promise<void>) {
  const sandbox = await startWalletSandbox({ auth: CC, ...options });
  try {
    await fn(sandbox);
  } finally {
    await sandbox.close();
  }
}

test('client credentials: token shape of spec 2.3, wrong secret, wrong grant, missing, revoked and expired tokens', async () => {
  let clock = new Date('2026-01-01T00:00:00Z');
  await withSandbox({ auth: { ...CC, tokenTtlSeconds: 60 }, now: () => clock }, async (s) => {
    const token = async (body: object) => {
      const res = await fetch(`${s.url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as any };
    };
    const ok = await token({ grant_type: 'client_credentials', client_id: 'op-client', client_secret: 'op-secret' });
    assert.deepEqual({ ...ok.json, access_token: typeof ok.json.access_token }, { access_token: 'string', expires_in: 60, token_type: 'bearer', scope: null });
    const wrong = await token({ grant_type: 'client_credentials', client_id: 'op-client', client_secret: 'nope' });
    assert.deepEqual([wrong.status, wrong.json.code, wrong.json.statusCode], [401, 'INVALID_CLIENT', 401]);
    assert.equal((await token({ grant_type: 'password', client_id: 'op-client', client_secret: 'op-secret' })).json.code, 'UNSUPPORTED_GRANT_TYPE');

    const auth = { authorization: `Bearer ${ok.json.access_token}` };
    assert.equal((await call(s, auth, 'reserve', reserve(1))).status, 200);
    const missing = await call(s, {}, 'reserve', reserve(1));
    assert.deepEqual(missing.json, { message: missing.json.message, code: 'INVALID_TOKEN', statusCode: 401 });
    clock = new Date(clock.getTime() + 61_000);
    assert.equal((await call(s, auth, 'reserve', reserve(1))).json.code, 'INVALID_TOKEN');
    const fresh = await bearer(s);
    s.revokeTokens();
    const revoked = await call(s, fresh, 'reserve', reserve(1));
    assert.deepEqual([revoked.status, revoked.json.code], [401, 'INVALID_TOKEN']);
    assert.equal((await call(s, await bearer(s), 'reserve', reserve(1))).status, 200);
  });
});

test('client credentials: a token request whose body is not JSON (nor a form) is VALIDATION_ERROR saying so, not an unsupported grant', async () => {
  await withSandbox({}, async (s) => {
    const send = async (body: string, type: string) => {
      const res = await fetch(`${s.url}/auth/token`, { method: 'POST', headers: { 'content-type': type }, body });
      return { status: res.status, json: (await res.json()) as { code: string; message: string; statusCode: number } };
    };
    for (const [body, type] of [['{"grant_type": "client_credentials",', 'application/json'], ['"client_credentials"', 'application/json'],
      ['[1]', 'application/json'], ['grant_type=client_credentials', 'text/plain']]) {
      const refused = await send(body!, type!);
      assert.deepEqual([refused.status, refused.json.code, refused.json.statusCode], [400, 'VALIDATION_ERROR', 400], body);
      assert.match(refused.json.message, /^the body must be a JSON object \{"grant_type": "client_credentials", "client_id", "client_secret"\}/);
    }
    const form = await send('grant_type=client_credentials&client_id=op-client&client_secret=op-secret', 'application/x-www-form-urlencoded');
    assert.equal(form.status, 200, 'a form is taken');
    assert.equal((await send('', 'application/json')).json.code, 'UNSUPPORTED_GRANT_TYPE', 'an empty body names no grant');
  });
});

test('API key: the configured header carries the key; a wrong key is 401 INVALID_API_KEY; there is no /auth/token', async () => {
  await withSandbox({ auth: { kind: 'api_key', apiKey: 'k-123', header: 'X-Wallet-Key' } }, async (s) => {
    assert.equal((await call(s, { 'x-wallet-key': 'k-123' }, 'reserve', reserve(1))).status, 200);
    const wrong = await call(s, { 'x-wallet-key': 'k-124' }, 'reserve', reserve(1));
    assert.deepEqual([wrong.status, wrong.json.code, wrong.json.statusCode], [401, 'INVALID_API_KEY', 401]);
    assert.equal((await call(s, { 'x-api-key': 'k-123' }, 'reserve', reserve(1))).status, 401);
    assert.equal((await call(s, {}, 'auth/token', { grant_type: 'client_credentials' })).status, 404);
  });
});

test('inspection: /healthz, /balances/{userId} (an unseen user reads as the opening balance), 404 and 405', async () => {
  await withSandbox({ auth: { kind: 'api_key', apiKey: 'k' }, openingBalance: '250', openingBonus: '5.5' }, async (s) => {
    assert.deepEqual(await (await fetch(`${s.url}/healthz`)).json(), { status: 'ok' });
    const userId = randomUUID();
    const res = await fetch(`${s.url}/balances/${userId}`, { headers: { 'x-api-key': 'k' } });
    assert.deepEqual(await res.json(), { userId, known: false, cash: '250.00', bonus: '5.50', reserved: '0.00' });
    assert.equal((await fetch(`${s.url}/balances/${userId}`)).status, 401);
    assert.equal(((await (await fetch(`${s.url}/nope`, { method: 'POST' })).json()) as any).code, 'NOT_FOUND');
    assert.equal(((await (await fetch(`${s.url}/reserve`)).json()) as any).code, 'METHOD_NOT_ALLOWED');
  });
});

test('amountUnit cents reads integer cents; failRate answers 503 SIMULATED_FAILURE and moves nothing', async () => {
  let draw = 0.9;
  await withSandbox({ amountUnit: 'cents', failRate: 0.5, random: () => draw }, async (s) => {
    const auth = await bearer(s);
    const body = reserve(1050);
    assert.equal((await call(s, auth, 'reserve', body)).status, 200);
    assert.deepEqual(await s.balances(body.userId), { cash: '989.50', bonus: '0.00', reserved: '10.50' });
    assert.equal((await call(s, auth, 'reserve', reserve(10.5))).json.code, 'VALIDATION_ERROR');
    draw = 0.1;
    const failed = await call(s, auth, 'reserve', reserve(100, body.userId));
    assert.deepEqual([failed.status, failed.json.code], [503, 'SIMULATED_FAILURE']);
    assert.deepEqual(await s.balances(body.userId), { cash: '989.50', bonus: '0.00', reserved: '10.50' });
  });
});

test('injected faults: status, garbage, empty, html, reset, per op, then normal service resumes', async () => {
  await withSandbox({}, async (s) => {
    const auth = await bearer(s);
    s.injectFaults([
      { op: 'reserve', kind: 'status', status: 503, times: 2 },
      { op: 'reserve', kind: 'status', status: 429, body: 'slow down' },
      { op: 'reserve', kind: 'garbage' },
      { op: 'reserve', kind: 'empty' },
      { op: 'reserve', kind: 'html', status: 502 },
      { op: 'debit', kind: 'reset' },
    ]);
    const body = reserve(5);
    const seen = [];
    for (let i = 0; i < 6; i++) {
      const r = await call(s, auth, 'reserve', body);
      seen.push([r.status, r.json?.code ?? r.text.slice(0, 15)]);
    }
    assert.deepEqual(seen, [
      [503, 'INTERNAL_ERROR'], [503, 'INTERNAL_ERROR'], [429, 'slow down'], [200, '{"success": tru'], [200, ''], [502, '<html><body><h1'],
    ]);
    assert.equal((await s.effects()).get(body.transactionId), undefined, 'no fault applied anything');
    await assert.rejects(call(s, auth, 'debit', { ...reserve(1), transactionType: 'deductbetwin' }));
    assert.equal((await call(s, auth, 'reserve', body)).status, 200);
    assert.deepEqual(s.requests().slice(-8).map((r) => r.status), [503, 503, 429, 200, 200, 502, 0, 200]);
    s.injectFaults([{ op: 'auth/token', kind: 'status', status: 500 }]);
    const token = await call(s, {}, 'auth/token', { grant_type: 'client_credentials', client_id: 'op-client', client_secret: 'op-secret' });
    assert.equal(token.status, 500);
    assert.equal((await call(s, {}, 'auth/token', { grant_type: 'client_credentials', client_id: 'op-client', client_secret: 'op-secret' })).status, 200);
  });
});

test('apply-then-fail: the call takes effect but is answered 500; the retry is a replay that moves nothing', async () => {
  await withSandbox({}, async (s) => {
    const auth = await bearer(s);
    s.injectFaults([{ kind: 'apply-then-fail' }]);
    const body = reserve(8);
    const first = await call(s, auth, 'reserve', body);
    assert.equal(first.status, 500);
    const retry = await call(s, auth, 'reserve', body);
    assert.deepEqual([retry.status, retry.json.success, retry.json.balance.cash], [200, true, '992.00']);
    assert.deepEqual(await s.balances(body.userId), { cash: '992.00', bonus: '0.00', reserved: '8.00' });
    assert.equal((await s.effects()).get(body.transactionId), 1);
  });
});

test('hang: the call is never answered; close() ends it', async () => {
  const s = await startWalletSandbox({ auth: CC });
  const auth = await bearer(s);
  s.injectFaults([{ op: 'reserve', kind: 'hang' }]);
  const pending = call(s, auth, 'reserve', {});
  while (!s.requests().some((r) => r.op === 'reserve')) await new Promise((r) => setImmediate(r));
  assert.equal(s.requests().at(-1)!.status, 0);
  await s.close();
  await assert.rejects(pending);
});

test('signingSecret: a valid signature passes; missing, tampered and stale ones are 401 INVALID_SIGNATURE', async () => {
  const clock = new Date('2026-05-01T12:00:00Z');
  await withSandbox({ auth: { kind: 'api_key', apiKey: 'k' }, signingSecret: 'operator-secret', now: () => clock }, async (s) => {
    const send = async (body: string, timestamp: number, signWith = 'operator-secret', signedBody = body) => {
      const signature = `v1=${createHmac('sha256', signWith).update(`${timestamp}.${signedBody}`).digest('hex')}`;
      const res = await fetch(`${s.url}/reserve`, {
        method: 'POST', body,
        headers: { 'x-api-key': 'k', 'content-type': 'application/json', 'x-wagerline-timestamp': String(timestamp), 'x-wagerline-signature': signature },
      });
      return [res.status, ((await res.json()) as { code?: string; success?: boolean }).code ?? 'ok'];
    };
    const now = clock.getTime() / 1000;
    const body = JSON.stringify(reserve(3));
    assert.deepEqual(await send(body, now), [200, 'ok']);
    assert.deepEqual(await send(JSON.stringify(reserve(3)), now, 'wrong-secret'), [401, 'INVALID_SIGNATURE']);
    assert.deepEqual(await send(JSON.stringify(reserve(3)), now, 'operator-secret', '{"tampered":true}'), [401, 'INVALID_SIGNATURE']);
    assert.deepEqual(await send(JSON.stringify(reserve(3)), now - 301), [401, 'INVALID_SIGNATURE']);
    assert.deepEqual(await send(JSON.stringify(reserve(3)), now + 299), [200, 'ok']);
    const unsigned = await call(s, { 'x-api-key': 'k' }, 'reserve', reserve(1));
    assert.deepEqual([unsigned.status, unsigned.json.code], [401, 'INVALID_SIGNATURE']);
  });
});

test('docs/wallet-sandbox.md documents every error code with its status, and every break mode', () => {
  const doc = readFileSync(new URL('../../../docs/wallet-sandbox.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
  assert.deepEqual([...rows.entries()].sort(), Object.entries(SANDBOX_CODES).map(([c, { status }]) => [c, status]).sort());
  for (const mode of BREAK_MODES) assert.match(doc, new RegExp(`^\\| \`${mode}\` \\|`, 'm'), mode);
});

test('the request log keeps only the latest requests: a sandbox left running does not grow without bound', async () => {
  await withSandbox({ auth: { kind: 'api_key', apiKey: 'k-123', header: 'X-Wallet-Key' }, requestLogLimit: 10 }, async (s) => {
    const sent = Array.from({ length: 25 }, () => reserve(1));
    for (const body of sent) assert.equal((await call(s, { 'x-wallet-key': 'k-123' }, 'reserve', body)).status, 200);
    const kept = s.requests().map((r) => r.transactionId);
    assert.ok(kept.length <= 10 && kept.length >= 9, `kept ${kept.length}`);
    assert.deepEqual(kept, sent.slice(-kept.length).map((b) => b.transactionId), 'the newest, in order');
    assert.equal((await s.effects()).size, 25, 'the ledger keeps every transaction');
  });
});
