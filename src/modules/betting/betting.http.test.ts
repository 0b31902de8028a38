// The admin API of placed bets (scope `admin`) over app.inject(), on bets placed through the
// betting service against the reference wallet: cancel, cash out, adjust and the bet's record;
// a client acts on its own tenant's bets only; every refusal a 4xx problem that changes nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startWalletSandbox } from '../../tools/wallet-sandbox/index.ts';
import { createTestApp, seedClient, type TestContext } from '../../../test/helpers/app.ts';
import { CLIENT } from '../../../test/wallet-fixtures.ts';
import { cliEnv, runCli } from '../../../test/helpers/cli.ts';

const M = 770501;
let ctx: TestContext;
let sandbox: Awaited<ReturnType<typeof startWalletSandbox>>;
let admin: Awaited<ReturnType<typeof seedClient>>;
let T: string;
let otherAdmin: Record<string, string>;
let catalog: Record<string, string>;

before(async () => {
  ctx = await createTestApp();
  sandbox = await startWalletSandbox({ auth: { kind: 'client_credentials', ...CLIENT } });
  admin = await seedClient(ctx, { scopes: ['admin'] });
  T = admin.tenant.tenant_id;
  otherAdmin = (await seedClient(ctx, { scopes: ['admin'] })).auth;
  catalog = (await seedClient(ctx, { scopes: ['catalog'], tenantId: T })).auth;
  await ctx.services.wallet.setWallet({ tenantId: T, url: sandbox.url, auth: 'client_credentials', ...CLIENT });
  await ctx.services.catalogue.importCatalog({
    meeting_id: M, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'exacta'],
      runners: [1, 2, 3, 4].map((n) => ({ number: n, name: `R${n}`, win: 2 + n })) }],
  });
});
after(async () => {
  await ctx.close();
  await sandbox.close();
});

async function place(type: 'WIN' | 'EXACTA', selections: number[][], price?: number): Promise<string> {
  const userId = randomUUID();
  const bet = await ctx.services.betting.placeBet({ tenantId: T, userId, token: 'custom-token', metadata: { userId, brandName: 'Test', brandUserId: userId, data: '{}' }, tenantTimezoneUsable: true }, {
    idempotencyKey: randomUUID(), type, stake: 10, legs: [{ meetingId: M, raceNumber: 1, selections, ...(price && { price }) }],
  });
  assert.equal(bet.status, 'ACCEPTED');
  return bet.id;
}

const url = (betId: string, action = '', tenant = T) => `/admin/tenants/${tenant}/bets/${betId}${action && `/${action}`}`;
function call(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown) {
  return ctx.app.inject({ method, url: path, headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { payload: JSON.stringify(body) }) });
}

test('no token 401, scope catalog 403, another tenant\'s admin 403, on every route; nothing changes', async () => {
  const betId = await place('WIN', [[1]], 3);
  const routes: Array<['GET' | 'POST', string, unknown?]> = [
    ['POST', url(betId, 'cancel'), {}], ['POST', url(betId, 'cash-out'), { amount: '5' }],
    ['POST', url(betId, 'adjust'), { amount: '5', reason: 'x' }], ['GET', url(betId)],
  ];
  for (const [method, path, body] of routes) {
    const anonymous = await call(method, path, {}, body);
    assert.deepEqual([anonymous.statusCode, anonymous.json().code], [401, 'invalid_token'], `${method} ${path}`);
    const wrong = await call(method, path, catalog, body);
    assert.deepEqual([wrong.statusCode, wrong.json().code], [403, 'insufficient_scope'], `${method} ${path}`);
    const other = await call(method, path, otherAdmin, body);
    assert.deepEqual([other.statusCode, other.json().code], [403, 'insufficient_scope'], `${method} ${path}`);
    assert.match(other.json().detail, /acts on that tenant's bets only/);
  }
  assert.equal((await ctx.services.bets.show({ tenantId: T, betId })).status, 'accepted');
});

test('GET a bet, cash it out with a decimal string, then it is closed to a second cash out', async () => {
  const betId = await place('WIN', [[2]], 4);
  const shown = await call('GET', url(betId), admin.auth);
  assert.equal(shown.statusCode, 200, shown.body);
  const record = shown.json();
  assert.deepEqual([record.bet_id, record.status, record.stake, record.accepted_stake, record.cash_out, record.legs.length], [betId, 'accepted', '10.00', '10.00', null, 1]);
  assert.deepEqual(record.wallet_calls.filter((c: { op: string }) => c.op !== 'refundBet').map((c: { op: string; status: string }) => c.op), ['reserve', 'confirm']);
  assert.deepEqual(record.history.map((h: { to: string }) => h.to), ['pending', 'accepted']);

  const cashed = await call('POST', url(betId, 'cash-out'), admin.auth, { amount: '12.50' });
  assert.equal(cashed.statusCode, 200, cashed.body);
  assert.deepEqual(cashed.json(), {
    tenant_id: T, bet_id: betId, status: 'cashed_out', previous_status: 'accepted', changed: true, payout: '0.00', refunded: '0.00',
    cash_out: '12.50', adjusted: '0.00', calls: [{ op: 'credit', amount: '12.50', transactionType: 'cashout' }],
  });
  const again = await call('POST', url(betId, 'cash-out'), admin.auth, { amount: '1.00' });
  assert.deepEqual([again.statusCode, again.json().code, again.json().status], [409, 'bet_state_conflict', 'cashed_out']);
  const after = (await call('GET', url(betId), admin.auth)).json();
  assert.equal(after.history.at(-1).detail.by, `client:${admin.client.client_id}`);
  assert.ok(after.wallet_calls.some((c: { op: string; transaction_type?: string; amount: string }) => c.op === 'credit' && c.transaction_type === 'cashout' && c.amount === '12.50'));
});

test('adjust with a JSON number and a reason; cancel with no body, once; the history keeps who and why', async () => {
  const betId = await place('WIN', [[3]], 5);
  const adjusted = await call('POST', url(betId, 'adjust'), admin.auth, { amount: 5.5, reason: 'goodwill' });
  assert.equal(adjusted.statusCode, 200, adjusted.body);
  assert.deepEqual([adjusted.json().status, adjusted.json().adjusted, adjusted.json().calls], ['accepted', '5.50', [{ op: 'credit', amount: '5.50', transactionType: 'adjustreversetransaction' }]]);
  const cancelled = await ctx.app.inject({ method: 'POST', url: url(betId, 'cancel'), headers: admin.auth });
  assert.equal(cancelled.statusCode, 200, cancelled.body);
  assert.deepEqual([cancelled.json().status, cancelled.json().refunded, cancelled.json().calls], ['cancelled', '10.00', [{ op: 'refundBet', amount: '10.00' }]]);
  const twice = await call('POST', url(betId, 'cancel'), admin.auth, { reason: 'again' });
  assert.deepEqual([twice.statusCode, twice.json().changed, twice.json().calls], [200, false, []]);
  const { history } = (await call('GET', url(betId), admin.auth)).json();
  assert.deepEqual(history.slice(2).map((h: { cause: string; detail: { by: string; reason: string | null } }) => [h.cause, h.detail.by, h.detail.reason]),
    [['adjustment', `client:${admin.client.client_id}`, 'goodwill'], ['cancelled', `client:${admin.client.client_id}`, null]]);
});

test('refusals: a 4xx problem, never a 500, and the bet unchanged', async () => {
  const win = await place('WIN', [[1]], 3);
  const exacta = await place('EXACTA', [[1], [2]]);
  const cases: Array<[string, 'GET' | 'POST', string, unknown, number, string, RegExp?]> = [
    ['cash out of a tote bet', 'POST', url(exacta, 'cash-out'), { amount: '5' }, 409, 'bet_state_conflict', /EXACTA is a tote bet/],
    ['cash out above the return', 'POST', url(win, 'cash-out'), { amount: '30.01' }, 400, 'validation_failed', /more than the bet can return \(30.00\)/],
    ['amount with 3 decimals', 'POST', url(win, 'cash-out'), { amount: 12.505 }, 400, 'validation_failed', /at most two decimals/],
    ['amount as text with 3 decimals', 'POST', url(win, 'cash-out'), { amount: '12.505' }, 400, 'validation_failed', /at most two decimals/],
    ['amount 0', 'POST', url(win, 'cash-out'), { amount: 0 }, 400, 'validation_failed', /above 0/],
    ['amount negative', 'POST', url(win, 'cash-out'), { amount: '-5' }, 400, 'validation_failed'],
    ['amount a boolean', 'POST', url(win, 'cash-out'), { amount: true }, 400, 'validation_failed'],
    ['no amount', 'POST', url(win, 'cash-out'), {}, 400, 'validation_failed', /body field "amount" is required/],
    ['adjust without reason', 'POST', url(win, 'adjust'), { amount: '5' }, 400, 'validation_failed', /body field "reason" is required/],
    ['adjust with a blank reason', 'POST', url(win, 'adjust'), { amount: '5', reason: '  ' }, 400, 'validation_failed', /reason must be a text of 1 to 500/],
    ['a misspelt field', 'POST', url(win, 'cancel'), { reson: 'x' }, 400, 'validation_failed', /body field "reson" is not a known field/],
    ['reason not a text', 'POST', url(win, 'cancel'), { reason: 5 }, 400, 'validation_failed'],
    // PostgreSQL's JSON refuses half a surrogate pair: the history entry's insert was a 500.
    ['a reason with an unpaired surrogate', 'POST', url(win, 'cancel'), { reason: 'x\ud800' }, 400, 'validation_failed', /no unpaired surrogate/],
    ['adjust with an unpaired surrogate', 'POST', url(win, 'adjust'), { amount: '5', reason: 'x\udc00y' }, 400, 'validation_failed', /no unpaired surrogate/],
    ['unknown bet', 'GET', url(randomUUID()), undefined, 404, 'bet_not_found'],
    ['unknown bet cancelled', 'POST', url(randomUUID(), 'cancel'), {}, 404, 'bet_not_found'],
    ['bet id not a UUID', 'GET', url('12345'), undefined, 400, 'validation_failed', /path parameter "bet_id"/],
    ['tenant id not a UUID', 'POST', url(win, 'cancel', 'acme'), {}, 400, 'validation_failed', /path parameter "tenant_id"/],
  ];
  for (const [name, method, path, body, status, code, detail] of cases) {
    const res = await call(method, path, admin.auth, body);
    assert.deepEqual([res.statusCode, res.json().code], [status, code], `${name}: ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/, name);
    if (detail) assert.match(res.json().detail, detail, name);
  }
  const broken = await ctx.app.inject({ method: 'POST', url: url(win, 'adjust'), headers: { ...admin.auth, 'content-type': 'application/json' }, payload: '{"amount":' });
  assert.deepEqual([broken.statusCode, broken.json().code], [400, 'malformed_json']);
  for (const betId of [win, exacta]) {
    const bet = await ctx.services.bets.show({ tenantId: T, betId });
    assert.deepEqual([bet.status, bet.cash_out, bet.adjusted, bet.history.length], ['accepted', null, '0.00', 2]);
  }
});

test('the OpenAPI document lists the bet routes under scope admin', async () => {
  const doc = (await ctx.app.inject({ url: '/openapi.json' })).json();
  const paths = Object.keys(doc.paths).filter((p) => /^\/admin\/tenants\/\{tenant_id\}\/bets\/\{bet_id\}(\/(adjust|cancel|cash-out))?$/.test(p));
  assert.deepEqual(paths.sort(), ['/admin/tenants/{tenant_id}/bets/{bet_id}', '/admin/tenants/{tenant_id}/bets/{bet_id}/adjust',
    '/admin/tenants/{tenant_id}/bets/{bet_id}/cancel', '/admin/tenants/{tenant_id}/bets/{bet_id}/cash-out']);
  for (const p of paths) for (const op of Object.values(doc.paths[p]) as Array<{ security: unknown }>) assert.deepEqual(op.security, [{ bearer: [] }], p);
  assert.ok(doc.paths['/admin/tenants/{tenant_id}/bets/{bet_id}/cash-out'].post.responses['409']);
});

test('adjust with an Idempotency-Key is made once: a repeat changes nothing, the key with another body is a 409 (CLI: --idempotency-key)', async () => {
  const betId = await place('WIN', [[2]], 4);
  const adjust = (key: string | undefined, body: unknown) => ctx.app.inject({ method: 'POST', url: url(betId, 'adjust'), payload: JSON.stringify(body),
    headers: { ...admin.auth, 'content-type': 'application/json', ...(key !== undefined && { 'idempotency-key': key }) } });
  const first = await adjust('goodwill-77', { amount: '2.00', reason: 'late price' });
  assert.deepEqual([first.statusCode, first.json().changed, first.json().adjusted, first.json().calls.length], [200, true, '2.00', 1], first.body);
  const repeat = await adjust('goodwill-77', { amount: 2, reason: ' late price ' });
  assert.deepEqual([repeat.statusCode, repeat.json().changed, repeat.json().adjusted, repeat.json().calls], [200, false, '2.00', []], repeat.body);
  const other = await adjust('goodwill-77', { amount: '3.00', reason: 'late price' });
  assert.deepEqual([other.statusCode, other.json().code], [409, 'idempotency_conflict'], other.body);
  assert.match(other.json().detail, /goodwill-77.*2\.00/);
  assert.equal((await adjust('x'.repeat(129), { amount: '1.00', reason: 'r' })).statusCode, 400);
  const cli = cliEnv(ctx.db.url);
  const args = ['bet', 'adjust', T, betId, '--amount', '1.00', '--reason', 'second', '--idempotency-key', 'goodwill-78'];
  assert.deepEqual([(await runCli(args, cli)).json().adjusted, (await runCli(args, cli)).json().changed], ['3.00', false]);
  const unkeyed = [await adjust(undefined, { amount: '1.00', reason: 'again' }), await adjust(undefined, { amount: '1.00', reason: 'again' })];
  assert.deepEqual(unkeyed.map((r) => r.json().adjusted), ['4.00', '5.00'], 'without a key every request is an adjustment');
  const record = (await call('GET', url(betId), admin.auth)).json();
  assert.deepEqual(record.wallet_calls.filter((c: { transaction_type: string | null }) => c.transaction_type === 'adjustreversetransaction').map((c: { amount: string }) => c.amount),
    ['2.00', '1.00', '1.00', '1.00']);
});

test('cancel with a JSON content type and no body (a client that sets it on every request) cancels, as a bare POST does', async () => {
  const betId = await place('WIN', [[1]], 3);
  const res = await ctx.app.inject({ method: 'POST', url: url(betId, 'cancel'), headers: { ...admin.auth, 'content-type': 'application/json', 'content-length': '0' } });
  assert.deepEqual([res.statusCode, res.json().status], [200, 'cancelled'], res.body);
  const broken = await ctx.app.inject({ method: 'POST', url: url(betId, 'cancel'), headers: { ...admin.auth, 'content-type': 'application/json' }, payload: '{"reason":' });
  assert.deepEqual([broken.statusCode, broken.json().code], [400, 'malformed_json'], 'a body that is there is still read as JSON');
});
