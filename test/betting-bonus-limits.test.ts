// A bonus bet pays its winnings only, never its bonus stake (docs/settlement-tote.md, Bonus bets), so
// the tenant's payout limits weigh what it pays: stake × (odds − 1). max_payout cuts its stake to
// the winnings allowed, its runner's liability grows by those winnings, a cancel takes the same
// amount off again, and the back-office shows that as what the book stands to pay.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { backofficeBet } from '../src/modules/betting/backoffice-view.ts';
import type { PageRow } from '../src/modules/betting/backoffice.queries.ts';
import { bettingFixtureWithWorker } from './betting-fixture.ts';

const MEETING = 770701;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;
before(async () => {
  f = await bettingFixtureWithWorker(MEETING, { openingBonus: '100.00' });
});
after(() => f.close());

/** A WIN on `runner` of race 1 (win price 2 + runner), with the bonus balance when `bonus`. */
const win = (userId: string, runner: number, stake: number, bonus: boolean) => f.services.betting.placeBet(f.user(userId), {
  idempotencyKey: randomUUID(), type: 'WIN', stake, bonus, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[runner]], price: 2 + runner }],
});

async function liabilityOf(runner: number): Promise<string> {
  const { rows } = await f.db.pool.query<{ liability: string }>(
    "SELECT liability::text FROM runner_liability WHERE tenant_id = $1 AND runner = $2 AND kind = 'WIN'", [f.tenantId, runner]);
  return rows[0]?.liability ?? 'none';
}

test('max_payout cuts a bonus bet to the winnings it allows, not to stake × odds', async () => {
  await f.services.betting.setLimits(f.tenantId, { maxPayout: '25' });
  try {
    // Runner 1 at 3.00: $12.50 of bonus stake wins $25.00; a cash $8.33 returns $24.99.
    const userId = randomUUID();
    const bonus = await win(userId, 1, 20, true);
    assert.deepEqual([bonus.status, bonus.acceptedStake, bonus.reasonCode], ['PARTIALLY_ACCEPTED', 12.5, 'max_payout']);
    const cash = await win(randomUUID(), 1, 20, false);
    assert.deepEqual([cash.status, cash.acceptedStake, cash.reasonCode], ['PARTIALLY_ACCEPTED', 8.33, 'max_payout']);
    await f.worker.drain();
    assert.deepEqual(await f.storedCalls(bonus.id), ['reserve delivered 20.00', 'confirm delivered 12.50']);
    assert.equal((await f.sandbox.balances(userId)).bonus, '87.50', 'the bonus balance pays the stake taken');
  } finally {
    await f.services.betting.setLimits(f.tenantId, { maxPayout: null });
  }
});

test('a bonus bet adds its winnings to the runner\'s liability, a cancel takes them off, the back-office shows them', async () => {
  await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: '40' });
  try {
    // Runner 2 at 4.00: a bonus stake wins 3 × itself, so $13.33 of it fits in 40 (39.99).
    const bonus = await win(randomUUID(), 2, 30, true);
    assert.deepEqual([bonus.status, bonus.acceptedStake, bonus.reasonCode], ['PARTIALLY_ACCEPTED', 13.33, 'max_runner_liability']);
    assert.equal(await liabilityOf(2), '39.99');
    const { rows: [row] } = await f.db.pool.query<PageRow>('SELECT *, NULL AS last_seq, false AS live FROM bets WHERE bet_id = $1', [bonus.id]);
    assert.equal(backofficeBet(row!).metadata.liability, '39.99', 'what the book stands to pay: the winnings');
    const refused = await win(randomUUID(), 2, 10, false);
    assert.deepEqual([refused.status, refused.reasonCode], ['REJECTED', 'max_runner_liability'], 'a cent of room pays no cash stake at 4.00');
    await f.services.bets.cancelBet({ tenantId: f.tenantId, betId: bonus.id });
    assert.equal(await liabilityOf(2), '0.00', 'the cancel takes off what the take added');
    const cash = await win(randomUUID(), 2, 10, false);
    assert.deepEqual([cash.status, cash.acceptedStake], ['ACCEPTED', 10]);
    assert.equal(await liabilityOf(2), '40.00');
  } finally {
    await f.services.betting.setLimits(f.tenantId, { maxRunnerLiability: null });
  }
});
