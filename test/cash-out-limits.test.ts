// A cash out pays what the bet can still return on its races' facts now. A multi with a leg already
// lost stays `accepted` until its last race is final, and was cashed out for its whole potential
// return: money paid on a dead bet. A single whose race is final but not yet settled was too.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { bettingFixtureWithWorker, importRaces } from './betting-fixture.ts';

const MEETING = 770611;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;
before(async () => {
  f = await bettingFixtureWithWorker(MEETING);
  await importRaces(f, MEETING, [2, 3], ['win', 'exacta'], 4);
});
after(() => f.close());

/** A $10 MULTI on runner 1 of race 1 (3.00) and runner 1 of `second` (3.00). */
async function multi(second: number) {
  const userId = randomUUID();
  const bet = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type: 'MULTI', stake: 10, legs: [1, second].map((raceNumber) => ({ meetingId: MEETING, raceNumber, selections: [[1]], price: 3 })),
  });
  assert.equal(bet.status, 'ACCEPTED');
  return { userId, ref: { tenantId: f.tenantId, betId: bet.id } };
}

const refused = (pattern: RegExp) => (e: unknown) => e instanceof AppError && e.code === 'bet_state_conflict' && pattern.test(e.message);

test('a multi with a leg lost is not cashed out; one with a leg won is, up to what it can still return', async () => {
  const losing = await multi(2); // races 1 and 2
  const winning = await multi(3); // races 1 and 3
  // Race 3 first: runner 1 wins, so the second multi is half won (3.00), race 1 still to run.
  await f.services.catalogue.setStatus(MEETING, 3, 'closed');
  await f.services.settlement.resultRace(MEETING, 3, { placings: [[1], [2]] });
  assert.equal((await f.services.bets.show(winning.ref)).status, 'accepted', 'open until race 1 is final');
  await assert.rejects(f.services.bets.cashOut(winning.ref, '90.01'), /more than the bet can return \(90\.00\)/);
  assert.equal((await f.services.bets.cashOut(winning.ref, '90.00')).status, 'cashed_out');

  // Race 1: runner 1 second. The first multi has lost, race 2 still to run.
  await f.services.catalogue.setStatus(MEETING, 1, 'closed');
  await f.services.settlement.resultRace(MEETING, 1, { placings: [[2], [1]] });
  assert.equal((await f.services.bets.show(losing.ref)).status, 'accepted', 'open until race 2 is final');
  await assert.rejects(f.services.bets.cashOut(losing.ref, '1.00'), refused(/leg 1 has lost: the bet returns nothing/));
  await f.worker.drain();
  assert.equal((await f.sandbox.balances(losing.userId)).cash, '990.00', 'nothing credited');
  assert.equal((await f.sandbox.balances(winning.userId)).cash, '1080.00', '1000 − 10 + 90');
});
