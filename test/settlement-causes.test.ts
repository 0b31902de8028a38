// The cause a bet's history gives its settlement is what decided the bet, whatever job of its races
// the worker happened to run first: a settlement queued by a scratching that is still pending when
// the race's result (or abandonment, or amendment) arrives runs on the latest facts, so the cause
// cannot be the job's (docs/settlement-running.md, Running settlement). The race changes are recorded with
// the catalogue alone (nothing settled) to play a lagging worker, then settled in one run.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770501;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING);
});
after(() => f.close());

/** An open race of the meeting with runners 1…`runners`: win 2, 3, 4…, place 1.5. */
async function race(raceNumber: number, runners = 8) {
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: raceNumber, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place', 'exacta'],
      runners: Array.from({ length: runners }, (_, i) => ({ number: i + 1, name: `R${i + 1}`, win: 2 + i, place: 1.5 })) }],
  });
}

type Leg = { raceNumber: number; runners: number[]; price?: number };
async function bet(type: 'WIN' | 'PLACE' | 'EXACTA' | 'MULTI', stake: number, legs: Leg[]) {
  const placed = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type, stake, boxed: type === 'EXACTA',
    legs: legs.map((l) => ({ meetingId: MEETING, raceNumber: l.raceNumber, selections: [l.runners], ...(l.price && { price: l.price }) })),
  });
  assert.equal(placed.status, 'ACCEPTED', JSON.stringify(placed));
  return { tenantId: f.tenantId, betId: placed.id };
}

/** The bet's status and its history after placement: [to, cause] of each entry. */
async function settlement(ref: { tenantId: string; betId: string }) {
  const history = await f.services.bets.history(ref);
  return history.filter((h) => !['placement', 'accepted'].includes(h.cause)).map((h) => `${h.to} ${h.cause}`);
}

const pending = async () => (await f.db.pool.query("SELECT count(*)::int AS n FROM settlement_jobs WHERE status = 'pending'")).rows[0].n as number;

test('a scratching still queued when the result comes: refunds name the scratching, settlements the result', async () => {
  await race(2);
  const onScratched = await bet('WIN', 5, [{ raceNumber: 2, runners: [8], price: 9 }]);
  const winner = await bet('WIN', 10, [{ raceNumber: 2, runners: [1], price: 2 }]);
  const loser = await bet('WIN', 10, [{ raceNumber: 2, runners: [2], price: 3 }]);
  const exacta = await bet('EXACTA', 6, [{ raceNumber: 2, runners: [1, 2, 8] }]);
  await f.services.catalogue.scratch(MEETING, 2, 8, { win_deduction: 20 });
  await f.services.catalogue.setStatus(MEETING, 2, 'closed');
  await f.services.catalogue.recordResult(MEETING, 2, { placings: [[1], [2], [3]], dividends: { exacta: 7.5 } });
  assert.equal(await pending(), 2, 'the scratching and the result are both queued');
  await f.services.settlement.runPending();

  assert.deepEqual(await settlement(onScratched), ['refunded scratching']);
  assert.deepEqual(await settlement(winner), ['settled result']);
  assert.deepEqual(await settlement(loser), ['settled result']);
  assert.deepEqual(await settlement(exacta), ['settled result'], 'a partial refund is paid at the result');
  // The jobs still say what queued the race.
  const { rows } = await f.db.pool.query('SELECT cause, status FROM settlement_jobs WHERE meeting_id = $1 AND race_number = 2 ORDER BY job_id', [MEETING]);
  assert.deepEqual(rows, [{ cause: 'scratching', status: 'done' }, { cause: 'result', status: 'done' }]);

  // A scratching after the result is refused: it queues nothing and records nothing.
  await assert.rejects(f.services.catalogue.scratch(MEETING, 2, 3), (e: { code?: string }) => e.code === 'race_not_trading');
  assert.equal(await pending(), 0);
  assert.deepEqual(await settlement(winner), ['settled result']);
});

test('a scratching, a result and an amendment all queued: one settlement each, on the amended result', async () => {
  await race(3);
  const onScratched = await bet('WIN', 5, [{ raceNumber: 3, runners: [8], price: 9 }]);
  const first = await bet('WIN', 10, [{ raceNumber: 3, runners: [1], price: 2 }]);
  const second = await bet('WIN', 10, [{ raceNumber: 3, runners: [2], price: 3 }]);
  await f.services.catalogue.scratch(MEETING, 3, 8);
  await f.services.catalogue.setStatus(MEETING, 3, 'closed');
  await f.services.catalogue.recordResult(MEETING, 3, { placings: [[1], [2], [3]] });
  await f.services.catalogue.recordResult(MEETING, 3, { placings: [[2], [1], [3]] }); // protest upheld
  assert.equal(await pending(), 3);
  await f.services.settlement.runPending();

  assert.deepEqual(await settlement(onScratched), ['refunded scratching']);
  assert.deepEqual(await settlement(first), ['settled amendment']);
  assert.deepEqual(await settlement(second), ['settled amendment']);

  // An amendment of a settled race re-settles by it, as ever.
  await f.services.catalogue.recordResult(MEETING, 3, { placings: [[1], [2], [3]] });
  await f.services.settlement.runPending();
  assert.deepEqual(await settlement(first), ['settled amendment', 'settled amendment']);
});

test('a multi: the scratching that voids its last open leg settles it; a result that comes after that scratching does', async () => {
  await race(4);
  await race(5);
  const voidedLast = await bet('MULTI', 10, [{ raceNumber: 4, runners: [1], price: 2 }, { raceNumber: 5, runners: [1], price: 2 }]);
  const resultedLast = await bet('MULTI', 10, [{ raceNumber: 4, runners: [2], price: 3 }, { raceNumber: 5, runners: [1], price: 2 }]);
  await f.services.catalogue.scratch(MEETING, 4, 2); // voids resultedLast's first leg, still queued when race 5 is resulted
  await f.services.catalogue.setStatus(MEETING, 5, 'closed');
  await f.services.catalogue.recordResult(MEETING, 5, { placings: [[1], [2], [3]] });
  await f.services.settlement.runPending();
  assert.deepEqual(await settlement(resultedLast), ['settled result']);
  assert.deepEqual(await settlement(voidedLast), [], 'its first leg is still to run');

  await f.services.catalogue.scratch(MEETING, 4, 1);
  await f.services.settlement.runPending();
  assert.deepEqual(await settlement(voidedLast), ['settled scratching']);
});

test('a scratching still queued when the race is abandoned: the abandonment refunds', async () => {
  await race(6);
  const other = await bet('WIN', 5, [{ raceNumber: 6, runners: [1], price: 2 }]);
  await f.services.catalogue.scratch(MEETING, 6, 2);
  await f.services.catalogue.setStatus(MEETING, 6, 'abandoned');
  await f.services.settlement.runPending();
  assert.deepEqual(await settlement(other), ['refunded abandoned']);
});

test('a place bet refunded for want of starters is refunded by the result, not by the scratching that shrank the field', async () => {
  await race(7, 5); // 5 starters: 2 places paid
  const place = await bet('PLACE', 10, [{ raceNumber: 7, runners: [1], price: 1.5 }]);
  await f.services.catalogue.scratch(MEETING, 7, 5); // 4 starters: no place betting
  await f.services.catalogue.setStatus(MEETING, 7, 'closed');
  await f.services.catalogue.recordResult(MEETING, 7, { placings: [[1], [2], [3]] });
  await f.services.settlement.runPending();
  assert.deepEqual(await settlement(place), ['refunded result']);
});
