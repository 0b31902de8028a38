// Takes are grouped per lane — the bet's races (betting.service.ts) — so a race held by a change
// (a scratching, a status change) delays only the bets on it; and a group that waited for a lock as
// long as it may is not retried bet by bet: each of its bets is refused race_busy at once, its
// stake returned, instead of waiting as long again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { WalletWorker } from '../src/modules/wallet/delivery/worker.ts';
import { bettingFixture, holdRace, lockWaited } from './betting-fixture.ts';
import { until } from './wallet-fixtures.ts';

const MEETING = 880401;
const OTHER = 880402;
const LOCK_TIMEOUT_MS = 1000;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: WalletWorker;
before(async () => {
  f = await bettingFixture(MEETING, { settings: { WAGERLINE_PLACEMENT_LOCK_TIMEOUT_MS: LOCK_TIMEOUT_MS } });
  worker = f.services.wallet.createWorker({ listen: false });
  await f.services.catalogue.importCatalog({
    meeting_id: OTHER, date: new Date().toISOString().slice(0, 10), venue: 'Sandown', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win'],
      runners: [1, 2, 3].map((n) => ({ number: n, name: `S${n}`, win: 2 + n, place: 1.5 })) }],
  });
});
after(async () => {
  await worker.stop();
  await f.close();
});

const winOn = (meetingId: number, runner: number) => f.services.betting.placeBet(f.user(randomUUID()), {
  idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId, raceNumber: 1, selections: [[runner]], price: 2 + runner }],
});

test('bets on a free race are taken while a bet on a held race waits for it', async () => {
  const held = await holdRace(f.db.pool, MEETING);
  try {
    const waiting = winOn(MEETING, 1);
    await until('the take on the held race to wait', () => lockWaited(f.db.pool));
    const started = Date.now();
    const free = await Promise.all([1, 2, 3].map((runner) => winOn(OTHER, runner)));
    assert.deepEqual(free.map((b) => b.status), ['ACCEPTED', 'ACCEPTED', 'ACCEPTED']);
    // Behind the held race they would be answered only once its bet gave up, after the lock timeout;
    // and that bet still waits: a loaded machine may take its time, but not that order.
    assert.ok(Date.now() - started < LOCK_TIMEOUT_MS, `taken in ${Date.now() - started} ms, not behind the held race`);
    assert.ok(await lockWaited(f.db.pool), 'the held race still holds its bet');
    await held.commit();
    assert.equal((await waiting).status, 'ACCEPTED');
  } finally {
    await held.rollback();
  }
});

test('a group that waited out the lock timeout refuses its bets race_busy at once, without waiting again, and returns every stake', async () => {
  const held = await holdRace(f.db.pool, MEETING);
  let second: Array<{ status: string; reasonCode?: string | null }> = [];
  let secondWaited = 0;
  try {
    const users = Array.from({ length: 4 }, () => randomUUID());
    const first = winOn(MEETING, 2);
    await until('the first take to wait', () => lockWaited(f.db.pool));
    const before = f.sandbox.requests().length;
    // Reserved while the first waits: they form one group, taken once the first is refused.
    const rest = users.map((u) => f.services.betting.placeBet(f.user(u), {
      idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[3]], price: 5 }],
    }));
    await until('the other reserves', () => f.sandbox.requests().length - before >= users.length);
    assert.equal((await first).reasonCode, 'race_busy');
    const groupStarted = Date.now();
    second = await Promise.all(rest);
    secondWaited = Date.now() - groupStarted;
    await worker.drain();
    for (const user of users) assert.equal((await f.sandbox.balances(user)).cash, '1000.00', 'the stake returned');
  } finally {
    await held.rollback();
  }
  assert.deepEqual(second.map((b) => [b.status, b.reasonCode]), Array(4).fill(['REJECTED', 'race_busy']));
  assert.ok(secondWaited < LOCK_TIMEOUT_MS * 1.6, `the group's bets answered ${secondWaited} ms after it started: one lock timeout, not two`);
});

test('a group that timed out on one runner\'s liability is retried bet by bet: only that runner\'s bets are refused', async () => {
  // Runner 4's liability row exists, then is held (as a cancel or another process's take would hold it).
  assert.equal((await winOn(MEETING, 4)).status, 'ACCEPTED');
  const client = await f.db.pool.connect();
  let rest: Array<{ status: string; reasonCode?: string | null }> = [];
  const users = Array.from({ length: 4 }, () => randomUUID());
  try {
    await client.query('BEGIN');
    await client.query('SELECT * FROM runner_liability WHERE meeting_id = $1 AND runner = 4 FOR UPDATE', [MEETING]);
    const first = winOn(MEETING, 4); // alone: waits on runner 4's row
    await until('the first take to wait', () => lockWaited(f.db.pool));
    const before = f.sandbox.requests().length;
    const placing = users.map((u, i) => f.services.betting.placeBet(f.user(u), {
      idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[[4, 1, 2, 3][i]!]], price: 2 + [4, 1, 2, 3][i]! }],
    }));
    await until('the other reserves', () => f.sandbox.requests().length - before >= users.length);
    assert.equal((await first).reasonCode, 'race_busy');
    rest = await Promise.all(placing);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
  assert.deepEqual(rest.map((b) => [b.status, b.reasonCode ?? null]),
    [['REJECTED', 'race_busy'], ['ACCEPTED', null], ['ACCEPTED', null], ['ACCEPTED', null]]);
  await worker.drain();
  assert.deepEqual(await Promise.all(users.map(async (u) => (await f.sandbox.balances(u)).cash)), ['1000.00', '990.00', '990.00', '990.00']);
});
