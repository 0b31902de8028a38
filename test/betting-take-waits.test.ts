// The take (the transaction that records the reserve's success and takes the bet) may wait for the
// race's row: a catalogue change holds it. What it finds after the wait decides the bet, and a take
// that fails once the wallet holds the stake still records that success and refunds the stake at
// once: the reserve is never asked again, nothing is confirmed, and no money stays held. The test
// holds the race's row in a transaction of its own (as a catalogue change does) to make the take
// wait, and acts while it waits.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { settlePlacement } from '../src/modules/betting/betting.queries.ts';
import { queueRaceSettlement } from '../src/modules/betting/settlement.service.ts';
import * as rq from '../src/modules/catalogue/races.queries.ts';
import type { WalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { bettingFixture, holdRace, lockWaited } from './betting-fixture.ts';
import { testClock } from './helpers/app.ts';
import { until } from './wallet-fixtures.ts';

const MEETING = 770011;
const OPENING = { cash: '1000.00', bonus: '0.00', reserved: '0.00' };
type Fixture = Awaited<ReturnType<typeof bettingFixture>>;

// `f` waits long for locks (10 s), so the test acts while the take waits; `busy` gives up after 500 ms.
let f: Fixture;
let busy: Fixture;
let workers: WalletWorker[];
before(async () => {
  f = await bettingFixture(MEETING, { settings: { WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS: 10_000 } });
  busy = await bettingFixture(MEETING, { settings: { WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS: 500 } });
  workers = [f, busy].map((x) => x.services.wallet.createWorker({ listen: false }));
});
after(async () => {
  for (const w of workers) await w.stop();
  await f.close();
  await busy.close();
});

const workerOf = (x: Fixture) => workers[x === f ? 0 : 1]!;

/** A promise's outcome without rejecting (it is awaited only after the race is released). */
function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
}

/** The refundBet queued behind the reserve, as stored: whether it is still to be sent, and due already. */
async function queuedRefund(x: Fixture, betId: string) {
  const { rows } = await x.db.pool.query<{ status: string; due: boolean }>(
    "SELECT status, next_attempt_at <= now() AS due FROM wallet_calls WHERE bet_id = $1 AND op = 'refundBet' AND status <> 'skipped'", [betId]);
  return rows;
}

/** No money held, nothing confirmed, every transaction applied at most once, the reserve asked once. */
async function releasedOnce(x: Fixture, betId: string, userId: string) {
  await workerOf(x).drain();
  assert.deepEqual(await x.storedCalls(betId), ['reserve delivered 10.00', 'refundBet delivered 10.00']);
  assert.deepEqual(x.sentOps(betId), ['reserve', 'refundBet'], 'one reserve request only, then the refund; no confirm');
  assert.deepEqual(await x.sandbox.balances(userId), OPENING);
  for (const [transactionId, count] of await x.sandbox.effects()) assert.ok(count <= 1, `${transactionId} took effect ${count} times`);
}

test('a scratching committed while the take waits for the race is seen: rejected, the whole stake refunded', async () => {
  const userId = randomUUID();
  const race = await holdRace(f.db.pool, MEETING);
  const placing = settle(f.placeWin(userId, 3));
  try {
    await until('the take to wait for the race', () => lockWaited(f.db.pool));
    // What catalogue.scratch does after locking the race: the runner scratched and the race queued
    // for settlement, committed while the take waits.
    await rq.scratch(race.client, MEETING, 1, 3, {}, new Date());
    await queueRaceSettlement(race.client, { meetingId: MEETING, raceNumber: 1, cause: 'scratching' }, new Date());
    await race.commit();
  } finally {
    await race.rollback();
  }
  const placed = await placing;
  assert.ok(placed.ok, `the placement answers: ${placed.ok || String(placed.error)}`);
  assert.deepEqual([placed.value.status, placed.value.reasonCode, placed.value.acceptedStake ?? 0], ['REJECTED', 'runner_scratched', 0]);
  assert.deepEqual(await f.storedCalls(placed.value.id), ['reserve delivered 10.00', 'refundBet pending 10.00'], 'refunded, nothing confirmed');
  await releasedOnce(f, placed.value.id, userId);
});

test('the race held past the lock timeout: the placement answers race_busy and the stake is refunded at once', async () => {
  const userId = randomUUID();
  const race = await holdRace(busy.db.pool, MEETING);
  const placing = settle(busy.placeWin(userId, 1));
  let answer;
  try {
    // The race stays held until the placement answers (500 ms lock timeout), or 5 s without one.
    answer = await Promise.race([placing, delay(5000, 'no answer while the race was held' as const)]);
  } finally {
    await race.rollback();
  }
  const placed = await placing;
  assert.notEqual(answer, 'no answer while the race was held', 'an answer while the race was still held: the take stops waiting after the lock timeout');
  assert.ok(placed.ok, `the placement answers: ${placed.ok || String(placed.error)}`);
  assert.deepEqual([placed.value.status, placed.value.reasonCode], ['REJECTED', 'race_busy']);
  const betId = placed.value.id;
  assert.deepEqual(await busy.betOf(userId), { bet_id: betId, status: 'rejected', reason_code: 'race_busy' });
  // The wallet's success is recorded (with its one attempt) and the refund is due now: no lease has
  // to run out and no rescue has to ask the wallet again.
  const { rows: [reserve] } = await busy.db.pool.query("SELECT status, attempts FROM wallet_calls WHERE bet_id = $1 AND op = 'reserve'", [betId]);
  assert.deepEqual(reserve, { status: 'delivered', attempts: 1 });
  assert.deepEqual(await queuedRefund(busy, betId), [{ status: 'pending', due: true }]);
  await releasedOnce(busy, betId, userId);
});

test('a bet read as interrupted while the take waits: the placement answers it as it stands, the refund is queued without asking again', async () => {
  const userId = randomUUID();
  const race = await holdRace(f.db.pool, MEETING);
  const placing = settle(f.placeWin(userId, 2));
  try {
    await until('the take to wait for the race', () => lockWaited(f.db.pool));
    // Meanwhile the bet is read as interrupted (what a read past the interruption window writes):
    // the take finds it no longer pending and fails after the wallet's success.
    const bet = (await f.betOf(userId))!;
    await settlePlacement(f.db.pool, f.tenantId, bet.bet_id, {
      status: 'rejected', acceptedStake: '0.00', percentage: null, fixedOdds: null, betLimit: null,
      reasonCode: 'placement_interrupted', reason: 'the placement was interrupted; any reservation was released',
    }, new Date(), 'placement_interrupted');
  } finally {
    await race.rollback();
  }
  const placed = await placing;
  assert.ok(placed.ok, `the placement answers: ${placed.ok || String(placed.error)}`);
  assert.deepEqual([placed.value.status, placed.value.reasonCode], ['REJECTED', 'placement_interrupted']);
  const bet = (await f.betOf(userId))!;
  assert.equal(bet.status, 'rejected');
  assert.deepEqual(await f.storedCalls(bet.bet_id), ['reserve delivered 10.00', 'refundBet pending 10.00'], 'the success recorded, the refund queued');
  assert.deepEqual(await queuedRefund(f, bet.bet_id), [{ status: 'pending', due: true }]);
  await releasedOnce(f, bet.bet_id, userId);
});

test('a take failing in the database once the wallet reserved: the error surfaces, the bet is rejected and the stake refunded without asking again', async () => {
  const userId = randomUUID();
  // The bet's report to the reporting store (the take's last statement) fails, as a broken database would.
  await f.db.pool.query(`CREATE FUNCTION test_refuse_report() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN RAISE EXCEPTION 'the reporting store refuses this row'; END $$`);
  await f.db.pool.query('CREATE TRIGGER test_refuse_report BEFORE INSERT ON reported_bets FOR EACH ROW EXECUTE FUNCTION test_refuse_report()');
  let placed;
  try {
    placed = await settle(f.placeWin(userId, 4));
  } finally {
    await f.db.pool.query('DROP TRIGGER test_refuse_report ON reported_bets; DROP FUNCTION test_refuse_report()');
  }
  assert.ok(!placed.ok && /refuses this row/.test(String((placed.error as Error).message)), 'the database error is thrown on (INTERNAL_SERVER_ERROR)');
  const bet = (await f.betOf(userId))!;
  assert.deepEqual(bet, { bet_id: bet.bet_id, status: 'rejected', reason_code: 'placement_failed' });
  assert.deepEqual(await queuedRefund(f, bet.bet_id), [{ status: 'pending', due: true }]);
  await releasedOnce(f, bet.bet_id, userId);
});

test('a take that would start later than any placement may take refuses the bet and refunds the stake', async () => {
  // The services' clock jumps while the wallet answers (300 ms), as a process stalled that long would.
  const clock = testClock();
  const late = await bettingFixture(MEETING, { walletLatencyMs: 300, clock, settings: { WAGERLINE_WALLET_LEASE_MS: 60_000 } });
  const worker = late.services.wallet.createWorker({ listen: false });
  try {
    const userId = randomUUID();
    const placing = late.placeWin(userId, 1);
    await until('the reserve to reach the wallet', () => late.sandbox.requests().some((r) => r.op === 'reserve'));
    // Past the timeouts of every reserve retry and the placement window (the defaults: 30 s + 60 s).
    clock.advance(91_000);
    const placed = await placing;
    assert.deepEqual([placed.status, placed.reasonCode], ['REJECTED', 'placement_interrupted']);
    assert.deepEqual(await late.storedCalls(placed.id), ['reserve delivered 10.00', 'refundBet pending 10.00']);
    await worker.drain();
    assert.deepEqual(late.sentOps(placed.id), ['reserve', 'refundBet']);
    assert.deepEqual(await late.sandbox.balances(userId), OPENING);
  } finally {
    await worker.stop();
    await late.close();
  }
});
