// A cash out is bounded by what the bet can still return on its races' facts now (docs/bets-admin.md).
// A late scratching's deduction, once declared, is such a fact: settlement takes it from the
// winnings of every leg struck before it. The bound once ignored it for a single and for a multi's
// legs whose race was not final, so a cash out could pay more than the bet could ever be settled for.
// And it read the races unlocked: a scratching committing meanwhile was not seen.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { scratch } from '../src/modules/catalogue/races.queries.ts';
import { bettingFixtureWithWorker, holdRace, importRaces, lockWaited } from './betting-fixture.ts';

const MEETING = 779911;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;
before(async () => {
  f = await bettingFixtureWithWorker(MEETING);
  await importRaces(f, MEETING, [2, 3, 4, 5], ['win', 'place'], 8); // runner n at win 2 + n, place 1.50
});
after(() => f.close());

async function place(type: 'WIN' | 'PLACE' | 'MULTI', legs: Array<[number, number, number]>, stake: number) {
  const bet = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type, stake,
    legs: legs.map(([raceNumber, runner, price]) => ({ meetingId: MEETING, raceNumber, selections: [[runner]], price })),
  });
  assert.equal(bet.status, 'ACCEPTED', JSON.stringify(bet));
  return { tenantId: f.tenantId, betId: bet.id };
}
const later = () => new Promise((resolve) => setTimeout(resolve, 5)); // the scratching strictly after the bet was struck
const tooMuch = (most: string) => (e: unknown) => e instanceof AppError && e.code === 'validation_failed'
  && e.message.includes(`more than the bet can return (${most})`);

test('a WIN taken before a 15 % late deduction returns at most $44.00: a cash out of $50.00 is refused', async () => {
  const ref = await place('WIN', [[2, 3, 5]], 10); // runner 3 at 5.00
  await later();
  await f.services.catalogue.scratch(MEETING, 2, 8, { win_deduction: 15 });
  await f.services.settlement.runPending();
  // What settlement pays if runner 3 wins: 1 + 4 × 0.85 = 4.40 → $44.00 (docs/settlement.md).
  await assert.rejects(f.services.bets.cashOut(ref, '44.01'), tooMuch('44.00'));
});

test('a PLACE taken before a 10 % place deduction returns at most $14.50', async () => {
  const ref = await place('PLACE', [[3, 2, 1.5]], 10);
  await later();
  await f.services.catalogue.scratch(MEETING, 3, 8, { place_deduction: 10 });
  await f.services.settlement.runPending();
  await assert.rejects(f.services.bets.cashOut(ref, '14.51'), tooMuch('14.50'));
});

test('a MULTI whose open leg has a 20 % late deduction returns at most 10 × 3.00 × 3.40 = $102.00', async () => {
  const ref = await place('MULTI', [[4, 1, 3], [5, 2, 4]], 10);
  await later();
  await f.services.catalogue.scratch(MEETING, 5, 8, { win_deduction: 20 });
  await f.services.settlement.runPending();
  await assert.rejects(f.services.bets.cashOut(ref, '102.01'), tooMuch('102.00'));
  // And it can never be settled for more: both legs win.
  for (const race of [4, 5]) await f.services.catalogue.setStatus(MEETING, race, 'closed');
  await f.services.settlement.resultRace(MEETING, 4, { placings: [[1], [2], [3]] });
  await f.services.settlement.resultRace(MEETING, 5, { placings: [[2], [1], [3]] });
  const shown = await f.services.bets.show(ref);
  assert.deepEqual([shown.status, shown.payout], ['settled', '102.00']);
});

test('a cash out waits for a scratching that holds its race, and is bounded by its deduction', async () => {
  const ref = await place('WIN', [[1, 3, 5]], 10); // runner 3 of race 1 at 5.00
  await later();
  // A scratching in progress: the race held, the runner scratched with 15 %, not yet committed.
  const held = await holdRace(f.db.pool, MEETING, 1);
  await scratch(held.client, MEETING, 1, 4, { win: '15' }, new Date());
  // Its refusal is awaited from the start: it may come before held.commit() has resolved.
  const refused = assert.rejects(f.services.bets.cashOut(ref, '50.00'), tooMuch('44.00'));
  for (let i = 0; i < 200 && !(await lockWaited(f.db.pool)); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  const waited = await lockWaited(f.db.pool);
  await held.commit();
  assert.ok(waited, 'the cash out waits for the race');
  await refused;
});
