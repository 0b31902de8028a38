// A return too large to store ($1,000,000,000,000 or more: the reporting store's NUMERIC(18,6))
// once rolled back its whole settlement batch, for ever: every bet on the race stayed unsettled.
// Now that bet is left unsettled with a problem naming it, the others settle, and corrected
// dividends settle it. A fixed-odds bet that could return that much is refused at placement.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770411;
let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: { drain(): Promise<void>; stop(): Promise<void> };
before(async () => {
  f = await bettingFixture(MEETING);
  worker = f.services.wallet.createWorker({ listen: false });
});
after(async () => {
  await worker.stop();
  await f.close();
});

async function place(userId: string, type: 'WIN' | 'EXACTA', selections: number[][], stake: number, price?: number) {
  const bet = await f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type, stake, legs: [{ meetingId: MEETING, raceNumber: 1, selections, ...(price !== undefined && { price }) }],
  });
  assert.equal(bet.status, 'ACCEPTED', JSON.stringify(bet));
  return bet.id;
}

const statusOf = async (betId: string) => (await f.db.pool.query<{ status: string }>('SELECT status FROM bets WHERE bet_id = $1', [betId])).rows[0]!.status;
const ops = async (betId: string) => (await f.db.pool.query<{ call: string }>(
  "SELECT op || ' ' || amount AS call FROM wallet_calls WHERE bet_id = $1 AND op <> 'reserve' AND NOT placement_guard ORDER BY seq", [betId])).rows.map((r) => r.call);

test('a fixed-odds bet that could return $1,000,000,000,000 or more is refused; nothing is written', async () => {
  await f.services.catalogue.setPrice(MEETING, 1, 4, { win: 10000 });
  const bets = async () => (await f.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bets')).rows[0]!.n;
  const before = await bets();
  await assert.rejects(f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'WIN', stake: 100_000_000, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[4]], price: 10000 }],
  }), (e: unknown) => e instanceof AppError && e.code === 'invalid_stake' && /could return 10000 × the stake, \$1,000,000,000,000 or more/.test(e.message));
  assert.equal(await bets(), before);
});

test('a tote return too large to store leaves that bet unsettled with a problem; the race\'s other bets settle', async () => {
  const whale = randomUUID();
  await f.sandbox.seedUser(whale, { cash: '60000000.00' });
  const exacta = await place(whale, 'EXACTA', [[1], [2]], 50_000_000);
  const winner = await place(randomUUID(), 'WIN', [[1]], 10, 3);
  const loser = await place(randomUUID(), 'WIN', [[3]], 10, 5);
  await f.services.catalogue.setStatus(MEETING, 1, 'closed');

  // An exacta dividend typed as 100,000.00 instead of 12.40: $5,000,000,000,000 for this bet.
  const typo = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]], dividends: { exacta: 100000 } });
  assert.equal(typo.settlement!.bets_changed, 2);
  assert.deepEqual(typo.settlement!.problems, [`bet ${exacta}: the bet would return 5000000000000.00, $1,000,000,000,000 or more, beyond what can be stored or paid: check the dividends`]);
  assert.deepEqual([await statusOf(exacta), await statusOf(winner), await statusOf(loser)], ['accepted', 'settled', 'settled']);

  const fixed = await f.services.settlement.resultRace(MEETING, 1, { placings: [[1], [2], [3]], dividends: { exacta: 12.4 } });
  assert.deepEqual([fixed.settlement!.bets_changed, fixed.settlement!.problems], [1, []]);
  await worker.drain();
  assert.deepEqual(await ops(exacta), ['confirm 50000000.00', 'settleBet 620000000.00']);
  assert.deepEqual(await ops(winner), ['confirm 10.00', 'settleBet 30.00']);
  assert.equal((await f.sandbox.balances(whale)).cash, '630000000.00');
});
