// A scratching that arrives in a catalogue import is a scratching like `race scratch`: the bets it
// leaves with no live selection are refunded, and a race past taking scratchings refuses the whole
// file. And a bet's `refunded` (its refund plus a partial refund) is added in cents, not floats;
// a bonus bet's cash out is capped at its winnings; a bet closed early gives its runner's liability back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770301;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: { drain(): Promise<void>; stop(): Promise<void> };
before(async () => {
  f = await bettingFixture(MEETING, { openingBonus: '100.00' });
  worker = f.services.wallet.createWorker({ listen: false });
});
after(async () => {
  await worker.stop();
  await f.close();
});

const today = () => new Date().toISOString().slice(0, 10);
type Runner = { number: number; name: string; scratched?: boolean; win?: number; win_deduction?: number };
const runners = (n = 8): Runner[] => Array.from({ length: n }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 2 + i, place: 1.5 } as Runner));
/** Imports race `race` of the meeting with `list` as its runners. */
const importRace = (race: number, list: Runner[]) => f.services.catalogue.importCatalog({
  meeting_id: MEETING, date: today(), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
  races: [{ race_number: race, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place', 'exacta'], runners: list }],
});

async function place(race: number, type: string, selections: number[][], stake: number, extra: { price?: number; boxed?: boolean; bonus?: boolean } = {}) {
  const userId = randomUUID();
  const bet = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type, stake, boxed: extra.boxed ?? false, bonus: extra.bonus ?? false,
    legs: [{ meetingId: MEETING, raceNumber: race, selections, ...(extra.price !== undefined && { price: extra.price }) }],
  });
  assert.equal(bet.status, 'ACCEPTED');
  return { userId, betId: bet.id };
}

const cash = async (userId: string) => (await f.sandbox.balances(userId)).cash;
const ops = async (betId: string) => (await f.db.pool.query<{ op: string; amount: string; t: string | null }>(
  `SELECT op, amount, extra->>'transactionType' AS t FROM wallet_calls WHERE bet_id = $1 AND op <> 'reserve' AND NOT placement_guard ORDER BY seq`, [betId])).rows.map((r) => `${r.op}${r.t ? `/${r.t}` : ''} ${r.amount}`);
const queued = async (race: number) => (await f.db.pool.query<{ n: number }>(
  'SELECT count(*)::int AS n FROM settlement_jobs WHERE meeting_id = $1 AND race_number = $2', [MEETING, race])).rows[0]!.n;
const runner = async (race: number, n: number) => (await f.services.catalogue.getRace(MEETING, race))!.runners.find((r) => r.number === n)!;

test('an import that scratches a runner of an open race queues the race, and the bets on the runner are refunded', async () => {
  await importRace(2, runners());
  const onEight = await place(2, 'WIN', [[8]], 5, { price: 9 });
  const onOne = await place(2, 'WIN', [[1]], 5, { price: 2 });
  const list = runners();
  list[7] = { number: 8, name: 'R8', scratched: true };
  await importRace(2, list);
  assert.equal(await queued(2), 1, 'the import queued the race in its transaction');
  const summary = await f.services.settlement.runPending();
  assert.equal(summary.bets_changed, 1);
  await worker.drain();
  assert.deepEqual(await ops(onEight.betId), ['confirm 5.00', 'refundBet 5.00']);
  assert.equal(await cash(onEight.userId), '1000.00');
  assert.deepEqual(await ops(onOne.betId), ['confirm 5.00'], 'a bet on a running runner is left alone');

  await importRace(2, list); // the same scratching again: nothing new to settle
  assert.equal((await f.services.settlement.runPending()).jobs, 0);
});

test('a scratching, new deductions or a new runner in an import on a final race refuse the whole file; repeating the race as it stands passes', async () => {
  const list = runners();
  list[5] = { number: 6, name: 'R6', scratched: true, win_deduction: 10 };
  await importRace(3, list);
  const winner = await place(3, 'WIN', [[1]], 10, { price: 2 });
  await f.services.catalogue.setStatus(MEETING, 3, 'closed');
  await f.services.settlement.resultRace(MEETING, 3, { placings: [[1], [2], [3]] });
  await worker.drain();
  assert.deepEqual(await ops(winner.betId), ['confirm 10.00', 'settleBet 20.00']);

  const scratchWinner = list.map((r) => (r.number === 1 ? { number: 1, name: 'R1', scratched: true } : r.number === 2 ? { ...r, win: 7 } : r));
  const refused = await importRace(3, scratchWinner).then(() => undefined, (e: unknown) => e);
  assert.ok(refused instanceof AppError, String(refused));
  assert.equal(refused.code, 'race_not_trading');
  assert.match(refused.message, /race 3 of meeting 770301 \(final\)/);
  assert.equal((await runner(3, 1)).scratched, false, 'nothing of the file written');
  assert.equal((await runner(3, 2)).win, '3.00', 'not even its prices');
  assert.equal(await queued(3), 1, 'only the result queued the race');

  const newDeduction = list.map((r) => (r.number === 6 ? { ...r, win_deduction: 20 } : r));
  await assert.rejects(importRace(3, newDeduction), (e: unknown) => e instanceof AppError && e.code === 'race_not_trading');
  assert.equal((await runner(3, 6)).win_deduction, '10.00');

  const extraRunner = [...list, { number: 9, name: 'R9', win: 10 }]; // a starter more: places paid could change
  await assert.rejects(importRace(3, extraRunner), (e: unknown) => e instanceof AppError && e.code === 'race_not_trading' && /adds runners to race 3 of meeting 770301 \(final\)/.test(e.message));
  assert.equal((await f.services.catalogue.getRace(MEETING, 3))!.runners.length, 8);

  await importRace(3, list); // the file as it was: runner 6 scratched with its 10% already
  await f.services.settlement.resultRace(MEETING, 3, { placings: [[2], [3], [4]] }); // an amendment
  await worker.drain();
  assert.deepEqual(await ops(winner.betId), ['confirm 10.00', 'settleBet 20.00', 'debit/deductbetwin 20.00'], 'lost, never refunded');
  assert.equal(await cash(winner.userId), '990.00');
});

test('refunded adds the refund and the partial refund in cents: 0.10 + 0.20 is 0.3', async () => {
  await importRace(4, runners());
  const boxed = await place(4, 'EXACTA', [[1, 2, 3]], 0.3, { boxed: true }); // 6 combinations of 5 cents
  await f.services.catalogue.scratch(MEETING, 4, 3); // 4 combinations hold runner 3
  await f.services.catalogue.setStatus(MEETING, 4, 'closed');
  await f.services.settlement.resultRace(MEETING, 4, { placings: [[5], [6], [7]] }); // lost; 0.20 back
  await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: boxed.betId }, { reason: 'test' });
  const { rows } = await f.db.pool.query<{ refunded: string; partial_refund: string }>('SELECT refunded, partial_refund FROM bets WHERE bet_id = $1', [boxed.betId]);
  assert.deepEqual(rows[0], { refunded: '0.10', partial_refund: '0.20' });
  const view = await f.services.betting.getBet(f.user(boxed.userId), boxed.betId);
  assert.equal(view!.refunded, 0.3);
});

test('a bonus bet is cashed out for at most its winnings: $10 at 4.00 for $30.00, not $40.00', async () => {
  await importRace(5, runners());
  const bonus = await place(5, 'WIN', [[3]], 10, { price: 4, bonus: true });
  const ref = { tenantId: f.tenantId, betId: bonus.betId };
  await assert.rejects(f.services.bets.cashOut(ref, '30.01'), (e: unknown) => e instanceof AppError && e.code === 'validation_failed' && /more than the bet can return \(30\.00\)/.test(e.message));
  const cash = await place(5, 'WIN', [[3]], 10, { price: 4 });
  await assert.rejects(f.services.bets.cashOut({ tenantId: f.tenantId, betId: cash.betId }, '40.01'), /can return \(40\.00\)/);
  const out = await f.services.bets.cashOut(ref, '30.00');
  assert.deepEqual(out.calls, [{ op: 'credit', amount: '30.00', transactionType: 'cashout' }]);
});

test('a cancelled or cashed-out WIN gives its room back under max_runner_liability', async () => {
  await importRace(6, runners()); // runner 4 at 5.00
  await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: '100' });
  try {
    const full = await place(6, 'WIN', [[4]], 20, { price: 5 }); // a payout of 100: the whole room
    const over = await f.services.betting.placeBet(f.user(randomUUID()), {
      idempotencyKey: randomUUID(), type: 'WIN', stake: 1, legs: [{ meetingId: MEETING, raceNumber: 6, selections: [[4]], price: 5 }] });
    assert.deepEqual([over.status, over.reasonCode], ['REJECTED', 'max_runner_liability']);
    await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: full.betId }, { reason: 'test' });
    const again = await place(6, 'WIN', [[4]], 20, { price: 5 });
    await f.services.bets.cashOut({ tenantId: f.tenantId, betId: again.betId }, '50.00');
    await place(6, 'WIN', [[4]], 20, { price: 5 });
    const { rows } = await f.db.pool.query<{ liability: string }>(
      'SELECT liability FROM runner_liability WHERE tenant_id = $1 AND meeting_id = $2 AND race_number = 6 AND runner = 4', [f.tenantId, MEETING]);
    assert.deepEqual(rows, [{ liability: '100.00' }]);
  } finally {
    await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: null });
  }
});

test('what a column cannot hold is refused as INVALID_STAKE, not a 500: a tote percentage, a multi\'s payout; a tote leg\'s price is checked', async () => {
  const refusedWith = (code: string, pattern: RegExp) => (e: unknown) => e instanceof AppError && e.code === code && pattern.test(e.message);
  const bets = async () => (await f.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bets')).rows[0]!.n;
  const before = await bets();
  const exacta = (stake: number, price?: number) => f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'EXACTA', stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1], [2]], ...(price !== undefined && { price }) }] });
  await assert.rejects(exacta(100_000_000), refusedWith('invalid_stake', /below \$100,000,000 a combination \(1 here\)/));
  await assert.rejects(exacta(2, Infinity), refusedWith('invalid_selection', /legs\[0\]: price must be a decimal price of at least 1/));
  await assert.rejects(exacta(2, -5), refusedWith('invalid_selection', /price must be a decimal price of at least 1/));
  await assert.rejects(f.services.betting.placeBet(f.user(randomUUID()), { idempotencyKey: randomUUID(), type: 'WIN', stake: 1_000_000_000,
    legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }] }), refusedWith('invalid_stake', /below 1,000,000,000\.00/));
  // Two legs at 10000: odds of 100,000,000; $1,000,000 could return $100,000,000,000,000 (the bound is $1,000,000,000,000).
  for (const race of [7, 8]) await importRace(race, runners().map((r) => ({ ...r, win: 10000 })));
  await assert.rejects(f.services.betting.placeBet(f.user(randomUUID()), { idempotencyKey: randomUUID(), type: 'MULTI', stake: 1_000_000,
    legs: [7, 8].map((raceNumber) => ({ meetingId: MEETING, raceNumber, selections: [[1]], price: 10000 })) }), refusedWith('invalid_stake', /could return 100000000 × the stake/));
  assert.equal(await bets(), before, 'nothing written');
  const seen = await exacta(2, 3.5); // a tote leg's seen price is kept as sent
  assert.equal(seen.legs[0]!.seenPrice, 3.5);
});
