// cancelBet through POST /backoffice/query, checked on the reference wallet's balances: an unsettled
// bet gets its stake back, a settled winner gives its winnings back first, a second cancel sends
// nothing, two at once have one effect; the reason shows as metadata.reason; refusals are coded.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { WalletSandbox } from '../src/tools/wallet-sandbox/types.ts';
import type { TestContext } from './helpers/app.ts';
import { codes, post, walletBench, type BackofficeClient } from './helpers/backoffice.ts';

const MEETING = 880101;
let bench: Awaited<ReturnType<typeof walletBench>>;
let ctx: TestContext;
let sandbox: WalletSandbox;
let client: BackofficeClient;
let worker: Awaited<ReturnType<typeof walletBench>>['worker'];

before(async () => {
  bench = await walletBench(MEETING);
  ({ ctx, sandbox, client, worker } = bench);
});
after(() => bench.close());

async function placeWin(race: number, runner: number, stake: number) {
  const bet = await bench.place({ type: 'WIN', stake, legs: [{ meetingId: MEETING, raceNumber: race, selections: [[runner]], price: 2 + runner }] });
  assert.equal(bet.status, 'ACCEPTED');
  return bet;
}

const cash = async (userId: string) => (await sandbox.balances(userId)).cash;
const CANCEL = `mutation CancelBet($bet: BetRef!, $reason: String) {
  cancelBet(bet: $bet, reason: $reason) { id status previous_status changed wallet_calls { operation transaction_type amount status } }
}`;
const cancel = (betId: string, reason?: string) =>
  post(ctx, client.headers, CANCEL, { bet: { id: betId, tenant_id: client.tenantId }, ...(reason !== undefined && { reason }) }, 'CancelBet');
const calls = (result: { body: { data?: Record<string, any> | null } }) =>
  (result.body.data!.cancelBet.wallet_calls as Array<{ operation: string; transaction_type: string | null; amount: string; status: string }>)
    .filter((c) => c.status !== 'skipped').map((c) => `${c.operation}${c.transaction_type ? `/${c.transaction_type}` : ''} ${c.amount}`);

const RECORD = `query GetBets($input: GetBetsInput!) { getBets(input: $input) { bets {
  metadata { status reason reason_id payout refunded liability }
  wallet_calls { operation amount transactionId status attempts { at http_status outcome error } }
  history { from to cause detail } } } }`;
const record = async (betId: string) =>
  (await post(ctx, client.headers, RECORD, { input: { tenant: { ids: [client.tenantId], bet_ids: [betId] } } }, 'GetBets')).body.data!.getBets.bets[0];

test('an unsettled bet: refundBet of the stake; the reason is stored and shown', async () => {
  const bet = await placeWin(1, 2, 10);
  assert.equal(await cash(bet.userId), '990.00');
  const result = await cancel(bet.betId, '  customer complaint #12  ');
  assert.equal(result.res.statusCode, 200, result.res.body);
  assert.deepEqual({ ...result.body.data!.cancelBet, wallet_calls: undefined },
    { id: bet.betId, status: 'CANCELLED', previous_status: 'ACCEPTED', changed: true, wallet_calls: undefined });
  assert.deepEqual(calls(result), ['reserve 10.00', 'confirm 10.00', 'refundBet 10.00']);
  await worker.drain();
  assert.equal(await cash(bet.userId), '1000.00');
  const shown = await record(bet.betId);
  assert.deepEqual(shown.metadata, { status: 'CANCELLED', reason: 'customer complaint #12', reason_id: 'cancelled', payout: '0.00', refunded: '10.00',
    liability: '0.00' });
  // The placement guard (a refundBet queued at reserve, skipped once the bet was taken) is listed too.
  const refunds = shown.wallet_calls.filter((c: { operation: string }) => c.operation === 'refundBet');
  assert.deepEqual(refunds.map((c: { status: string }) => c.status), ['skipped', 'delivered']);
  const refund = refunds[1];
  assert.equal(refund.status, 'delivered');
  assert.equal(refund.attempts.length, 1);
  assert.deepEqual({ ...refund.attempts[0], at: undefined }, { at: undefined, http_status: 200, outcome: 'success', error: null });
  assert.ok(!Number.isNaN(Date.parse(refund.attempts[0].at)));
  const last = shown.history.at(-1);
  assert.deepEqual([last.from, last.to, last.cause, last.detail.reason, last.detail.by], ['ACCEPTED', 'CANCELLED', 'cancelled', 'customer complaint #12', `client:${client.clientId}`], 'who cancelled, as the admin API records it (docs/bets-admin.md)');
});

test('a reason of 500 characters is taken whatever they are (an emoji is one), 501 are refused', async () => {
  const refused = await cancel((await placeWin(1, 2, 1)).betId, '\u{1F3C7}'.repeat(501));
  assert.deepEqual(refused.body.errors?.map((e) => e.extensions.code), ['BAD_USER_INPUT'], refused.res.body.slice(0, 300));
  const taken = await cancel((await placeWin(1, 2, 1)).betId, '\u{1F3C7}'.repeat(500));
  assert.equal(taken.body.data?.cancelBet.status, 'CANCELLED', taken.res.body.slice(0, 300));
});

test('a settled winner: its winnings debited (betwincancelled), then the stake refunded', async () => {
  const winner = await placeWin(2, 1, 10);   // runner 1 at 3.00
  await ctx.services.catalogue.setStatus(MEETING, 2, 'closed');
  await ctx.services.settlement.resultRace(MEETING, 2, { placings: [[1], [2], [3]] });
  await worker.drain();
  assert.equal(await cash(winner.userId), '1020.00');
  const result = await cancel(winner.betId, 'race declared void by stewards');
  assert.deepEqual([result.body.data!.cancelBet.previous_status, result.body.data!.cancelBet.status], ['SETTLED', 'CANCELLED']);
  assert.deepEqual(calls(result).slice(-2), ['debit/betwincancelled 30.00', 'refundBet 10.00']);
  await worker.drain();
  assert.equal(await cash(winner.userId), '1000.00');
  assert.deepEqual((await record(winner.betId)).metadata.payout, '0.00');
});

test('an already cancelled bet: the same answer, changed false, no wallet call', async () => {
  const bet = await placeWin(1, 3, 5);
  await cancel(bet.betId);
  await worker.drain();
  const before = sandbox.requests().length;
  const again = await cancel(bet.betId, 'second thoughts');
  assert.deepEqual([again.body.data!.cancelBet.status, again.body.data!.cancelBet.changed], ['CANCELLED', false]);
  assert.deepEqual(calls(again), ['reserve 5.00', 'confirm 5.00', 'refundBet 5.00']);
  await worker.drain();
  assert.equal(sandbox.requests().length, before, 'nothing sent');
  assert.equal(await cash(bet.userId), '1000.00');
  assert.equal((await record(bet.betId)).metadata.reason, null, 'the first cancel\'s reason stays (it had none)');
});

test('two cancels at once: one has the effect, the other answers changed false; one refund', async () => {
  const bet = await placeWin(1, 4, 7.5);
  const both = await Promise.all([cancel(bet.betId, 'a'), cancel(bet.betId, 'b')]);
  assert.deepEqual(both.map((r) => r.body.data!.cancelBet.changed).sort(), [false, true]);
  await worker.drain();
  const shown = await record(bet.betId);
  const sent = shown.wallet_calls.filter((c: { operation: string; status: string }) => c.operation === 'refundBet' && c.status !== 'skipped');
  assert.deepEqual(sent.map((c: { amount: string; status: string }) => `${c.amount} ${c.status}`), ['7.50 delivered']);
  assert.equal(await cash(bet.userId), '1000.00');
});

test('refusals: unknown bet NOT_FOUND, a final bet BET_STATE_CONFLICT, a long reason or a non-UUID id BAD_USER_INPUT — nothing sent', async () => {
  const before = sandbox.requests().length;
  const unknown = await cancel(randomUUID());
  assert.deepEqual([unknown.res.statusCode, codes(unknown.body), unknown.body.data], [200, ['NOT_FOUND'], null]);
  const bet = await placeWin(1, 1, 4);
  await ctx.services.bets.cashOut({ tenantId: client.tenantId, betId: bet.betId }, '5.00');
  await worker.drain();
  const sent = sandbox.requests().length;
  const final = await cancel(bet.betId);
  assert.deepEqual(codes(final.body), ['BET_STATE_CONFLICT']);
  assert.equal(final.body.errors![0]!.extensions.status, 'cashed_out');
  const long = await cancel(bet.betId, 'x'.repeat(501));
  assert.deepEqual(codes(long.body), ['BAD_USER_INPUT']);
  const halfPair = await cancel(bet.betId, 'x\ud800'); // PostgreSQL's JSON refuses it: a 500 before
  assert.deepEqual([halfPair.res.statusCode, codes(halfPair.body)], [200, ['BAD_USER_INPUT']]);
  const notUuid = await cancel('abc');
  assert.deepEqual(codes(notUuid.body), ['BAD_USER_INPUT'], 'an id that is not a UUID (docs/backoffice-schema.md, Errors)');
  await worker.drain();
  assert.equal(sandbox.requests().length, sent);
  assert.ok(sent > before);
});

test('a bet left pending by an interrupted placement is refused as the REJECTED bet getBets shows, not as pending', async () => {
  const bet = await placeWin(1, 2, 3);
  await worker.drain();
  await ctx.db.pool.query(`UPDATE bets SET status = 'pending', accepted_stake = NULL, fixed_odds = NULL, created_at = now() - interval '1 hour'
    WHERE bet_id = $1`, [bet.betId]);
  const sent = sandbox.requests().length;
  const refused = await cancel(bet.betId);
  assert.deepEqual(codes(refused.body), ['BET_STATE_CONFLICT']);
  assert.equal(refused.body.errors![0]!.extensions.status, 'rejected');
  assert.match(refused.body.errors![0]!.message, /a rejected bet is final/);
  await worker.drain();
  assert.equal(sandbox.requests().length, sent, 'nothing sent');
  const cashOut = ctx.services.bets.cashOut({ tenantId: client.tenantId, betId: bet.betId }, '1.00');
  await assert.rejects(cashOut, (e: { code?: string; extensions?: { status?: string } }) => e.code === 'bet_state_conflict' && e.extensions?.status === 'rejected');
});
