// `wagerline bet cancel | cash-out | adjust | show | history` through the real bin/wagerline, on bets
// placed in-process (test/betting-fixture.ts): one JSON object on stdout, money as decimal text,
// the wallet calls queued; every refusal one line on stderr with nothing changed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from '../../../test/betting-fixture.ts';
import { cliChecks, cliEnv, runCli } from '../../../test/helpers/cli.ts';

const M = 770401;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let env: Record<string, string>;
let T: string;

before(async () => {
  f = await bettingFixture(M);
  env = cliEnv(f.db.url);
  T = f.tenantId;
});
after(() => f.close());

const { ok, refused } = cliChecks(() => env);

async function place(type: 'WIN' | 'EXACTA', selections: number[][], price?: number) {
  const bet = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type, stake: 10, legs: [{ meetingId: M, raceNumber: 1, selections, ...(price && { price }) }],
  });
  assert.equal(bet.status, 'ACCEPTED');
  return bet.id;
}

const ops = async (betId: string) => (await f.db.pool.query<{ op: string; amount: string; t: string | null }>(
  `SELECT op, amount, extra->>'transactionType' AS t FROM wallet_calls WHERE bet_id = $1 AND op <> 'reserve' AND NOT placement_guard ORDER BY seq`,
  [betId])).rows.map((r) => `${r.op}${r.t ? `/${r.t}` : ''} ${r.amount}`);

test('bet show: the whole record with legs, wallet calls and history; cash out, then it is closed', async () => {
  const betId = await place('WIN', [[1]], 3);
  const shown = await ok(['bet', 'show', T, betId]);
  assert.deepEqual([shown.tenant_id, shown.bet_id, shown.kind, shown.status, shown.result], [T, betId, 'WIN', 'accepted', null]);
  assert.deepEqual([shown.stake, shown.accepted_stake, shown.fixed_odds, shown.payout, shown.refunded, shown.partial_refund, shown.cash_out, shown.adjusted],
    ['10.00', '10.00', '3', '0.00', '0.00', '0.00', null, '0.00']);
  assert.deepEqual(shown.legs.map((l: { meeting_id: number; race_number: number; selections: number[][]; price: string }) => [l.meeting_id, l.race_number, l.selections, l.price]),
    [[M, 1, [[1]], '3']]);
  assert.deepEqual(shown.wallet_calls.map((c: { op: string; amount: string }) => [c.op, c.amount]).filter(([op]: string[]) => op !== 'refundBet'),
    [['reserve', '10.00'], ['confirm', '10.00']]);
  assert.ok(shown.wallet_calls.every((c: { status: string; call_id: string }) => typeof c.status === 'string' && /^[0-9a-f-]{36}$/.test(c.call_id)));
  assert.deepEqual(shown.history.map((h: { from: string | null; to: string; cause: string }) => [h.from, h.to]), [[null, 'pending'], ['pending', 'accepted']]);

  await Promise.all([
    refused(['bet', 'cash-out', T, betId, '--amount', '30.01'], /amount 30.01 is more than the bet can return \(30.00\)/),
    refused(['bet', 'cash-out', T, betId, '--amount', '12.505'], /--amount .*is invalid: must be an amount in dollars above 0 and below 100,000,000,000 with at most two decimals/),
    refused(['bet', 'cash-out', T, betId], /required option '--amount <dollars>' not specified/),
  ]);
  // Beyond what an amount can be: a usage error (exit 2) naming the bound, before the database is opened.
  const huge = await runCli(['bet', 'adjust', T, betId, '--amount', '100000000000', '--reason', 'x'], env);
  assert.equal(huge.code, 2, huge.stderr);
  assert.match(huge.stderr, /below 100,000,000,000/);
  const cashed = await ok(['bet', 'cash-out', T, betId, '--amount', '12.50']);
  assert.deepEqual(cashed, {
    tenant_id: T, bet_id: betId, status: 'cashed_out', previous_status: 'accepted', changed: true, payout: '0.00', refunded: '0.00',
    cash_out: '12.50', adjusted: '0.00', calls: [{ op: 'credit', amount: '12.50', transactionType: 'cashout' }],
  });
  assert.deepEqual(await ops(betId), ['confirm 10.00', 'credit/cashout 12.50']);
  await refused(['bet', 'cash-out', T, betId, '--amount', '1'], /cannot be cashed out: it is cashed_out; only an accepted bet not yet settled can be/);
});

test('bet adjust needs a reason; bet cancel returns the stake once; bet history tells who and why', async () => {
  const betId = await place('WIN', [[2]], 4);
  await Promise.all([
    refused(['bet', 'adjust', T, betId, '--amount', '5.00'], /required option '--reason <text>' not specified/),
    refused(['bet', 'adjust', T, betId, '--amount', '5.00', '--reason', '   '], /reason must be a text of 1 to 500 characters/),
  ]);
  const adjusted = await ok(['bet', 'adjust', T, betId, '--amount', '5.00', '--reason', 'goodwill: late price change']);
  assert.deepEqual([adjusted.status, adjusted.changed, adjusted.adjusted, adjusted.calls],
    ['accepted', true, '5.00', [{ op: 'credit', amount: '5.00', transactionType: 'adjustreversetransaction' }]]);

  const cancelled = await ok(['bet', 'cancel', T, betId, '--reason', 'stewards voided the race']);
  assert.deepEqual([cancelled.status, cancelled.previous_status, cancelled.changed, cancelled.refunded, cancelled.calls],
    ['cancelled', 'accepted', true, '10.00', [{ op: 'refundBet', amount: '10.00' }]]);
  const again = await ok(['bet', 'cancel', T, betId]);
  assert.deepEqual([again.status, again.changed, again.calls], ['cancelled', false, []]);
  assert.deepEqual(await ops(betId), ['confirm 10.00', 'credit/adjustreversetransaction 5.00', 'refundBet 10.00']);

  const { tenant_id, bet_id, history } = await ok(['bet', 'history', T, betId]);
  assert.deepEqual([tenant_id, bet_id], [T, betId]);
  assert.deepEqual(history.map((h: { to: string; cause: string }) => `${h.to} ${h.cause}`), ['pending placement', 'accepted accepted', 'accepted adjustment', 'cancelled cancelled']);
  assert.deepEqual([history[2].detail.reason, history[2].detail.by, history[3].detail.reason, history[3].detail.by],
    ['goodwill: late price change', 'cli', 'stewards voided the race', 'cli']);
  const shown = await ok(['bet', 'show', T, betId]);
  assert.deepEqual([shown.status, shown.cancel_reason, shown.refunded, shown.adjusted, shown.history.length], ['cancelled', 'stewards voided the race', '10.00', '5.00', 4]);
});

test('refusals: a tote bet is not cashed out, an unknown bet, ids that are not UUIDs', async () => {
  const exacta = await place('EXACTA', [[1], [2]]);
  const unknown = randomUUID();
  await Promise.all([
    refused(['bet', 'cash-out', T, exacta, '--amount', '5'], /EXACTA is a tote bet; only fixed-odds bets are cashed out/),
    refused(['bet', 'show', T, unknown], new RegExp(`tenant ${T} has no bet ${unknown}`)),
    refused(['bet', 'cancel', randomUUID(), exacta], /has no bet/),
    refused(['bet', 'history', T, 'not-a-uuid'], /'not-a-uuid' is invalid for argument 'bet_id': must be a UUID/),
  ]);
  assert.equal((await f.services.bets.show({ tenantId: T, betId: exacta })).status, 'accepted');
});
