// When a leg's price was struck, for late-scratching deductions (docs/settlement.md). A bet placed
// before a scratching whose price rose while its reserve was in flight is taken at the price
// offered at the take, framed after the field changed: that leg is struck at the take and no
// deduction applies. Once a deduction was taken from such a bet as well — the re-framed price and
// the deduction for the same scratching. A price that did not move stays struck at the bet's
// creation, so the scratching after it takes its deduction. And an import reads the time of its
// scratchings once it holds their races, as `race scratch` does.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixtureWithWorker, holdRace, importRaces, lockWaited } from './betting-fixture.ts';

const MEETING = 770533;
/** Added to the services' clock (the wallet sandbox keeps the real time). */
let offsetMs = 0;
let f: Awaited<ReturnType<typeof bettingFixtureWithWorker>>;
before(async () => {
  // A slow wallet: the reserve is in flight long enough for the catalogue to change meanwhile.
  f = await bettingFixtureWithWorker(MEETING, { walletLatencyMs: 1000, clock: () => new Date(Date.now() + offsetMs) });
  await importRaces(f, MEETING, [2], ['win'], 6);
});
after(() => f.close());

const stored = async (betId: string) => (await f.db.pool.query<{ status: string; payout: string; price: string; seen: string }>(
  `SELECT b.status, b.payout, l.price::text, l.seen_price::text AS seen FROM bets b JOIN bet_legs l USING (tenant_id, bet_id)
    WHERE b.bet_id = $1`, [betId])).rows[0]!;

async function untilPending(userId: string): Promise<string> {
  for (let i = 0; i < 200; i += 1) {
    const bet = await f.betOf(userId);
    if (bet) return bet.bet_id;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the bet was never stored pending');
}

test('a scratching while the reserve is in flight: a price re-framed upwards is struck at the take and not reduced; an unmoved one is', async () => {
  const [moved, unmoved] = [randomUUID(), randomUUID()];
  // $10 wins at 3.00 on runner 1 and at 4.00 on runner 2, both seen at the imported prices.
  const placing = [f.placeWin(moved, 1), f.placeWin(unmoved, 2)];
  const ids = [await untilPending(moved), await untilPending(unmoved)];
  await f.services.catalogue.scratch(MEETING, 1, 4, { win_deduction: 20 });
  await f.services.catalogue.setPrice(MEETING, 1, 1, { win: 3.5 });
  assert.deepEqual([(await f.betOf(moved))!.status, (await f.betOf(unmoved))!.status], ['pending', 'pending'],
    'the catalogue changed while both reserves were in flight');
  const placed = await Promise.all(placing);
  assert.deepEqual(placed.map((b) => b.status), ['ACCEPTED', 'ACCEPTED']);
  assert.deepEqual([(await stored(ids[0]!)).price, (await stored(ids[1]!)).price], ['3.5', '4'], 'runner 1 taken at its new price');
  // The bet's record shows when each leg was struck: at the take for the moved price, else at creation.
  const records = await Promise.all(ids.map((betId) => f.services.bets.show({ tenantId: f.tenantId, betId })));
  assert.ok(records[0]!.legs[0]!.struck_at > records[0]!.created_at, 'the moved leg: struck after the bet was created');
  assert.equal(records[1]!.legs[0]!.struck_at, records[1]!.created_at);

  // A dead heat for first between 1 and 2: each wins on half its stake.
  await f.services.catalogue.setStatus(MEETING, 1, 'closed');
  await f.services.settlement.resultRace(MEETING, 1, { placings: [[1, 2], [3]] });
  await f.worker.drain();
  // Runner 1: $5 × 3.50, no deduction (its price was framed after the scratching) = $17.50.
  // Runner 2: $5 × (1 + 3 × 0.80) = $17.00: struck before the scratching.
  assert.deepEqual([(await stored(ids[0]!)).payout, (await stored(ids[1]!)).payout], ['17.50', '17.00']);
  assert.equal((await f.sandbox.balances(moved)).cash, '1007.50');
  assert.equal((await f.sandbox.balances(unmoved)).cash, '1007.00');
});

test('an import that waited for a race reads the time of its scratchings once it holds the race', async () => {
  const held = await holdRace(f.db.pool, MEETING, 2);
  const importing = f.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 2, start_time: new Date(Date.now() + 7200_000).toISOString(), products: ['win'],
      runners: [{ number: 6, name: 'R6', scratched: true, win_deduction: 10 }] }],
  });
  for (let i = 0; i < 200 && !(await lockWaited(f.db.pool)); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(await lockWaited(f.db.pool), 'the import waits for the race');
  offsetMs = 3600_000;
  const resumed = Date.now() + offsetMs;
  await held.commit();
  await importing;
  const { rows } = await f.db.pool.query<{ scratched_at: Date }>(
    'SELECT scratched_at FROM runners WHERE meeting_id = $1 AND race_number = 2 AND runner_number = 6', [MEETING]);
  assert.ok(rows[0]!.scratched_at.getTime() >= resumed, `scratched at ${rows[0]!.scratched_at.toISOString()}, before the import held the race`);
});
