// What changes while the wallet answers the reserve decides the bet: the races are read again under
// a share lock in the accepting transaction. A price that rose is taken at its new value (stored on
// the leg and sent in betMetadata); a price that fell, a closed race or a scratched runner refuses
// the bet and refunds the whole stake in the same transaction. The wallet holds each reserve for
// 300 ms, while the test changes the catalogue.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bettingFixture } from './betting-fixture.ts';
import { until } from './wallet-fixtures.ts';

const MEETING = 770003;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING, { walletLatencyMs: 300 });
});
after(() => f.close());

/** Places a WIN on `runner` at `price`, and runs `meanwhile` once the reserve has reached the wallet. */
async function placeWhile(runner: number, price: number, meanwhile: () => Promise<unknown>) {
  const userId = randomUUID();
  const before = f.sandbox.requests().length;
  const placing = f.services.betting.placeBet(f.user(userId), {
    idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[runner]], price }],
  });
  await until('the reserve to reach the wallet', () => f.sandbox.requests().slice(before).some((r) => r.op === 'reserve'));
  await meanwhile();
  const bet = await placing;
  const calls = await f.db.pool.query<{ op: string; amount: string; extra: { betMetadata?: { fixedOdds: number } } }>(
    'SELECT op, amount, extra FROM wallet_calls WHERE bet_id = $1 ORDER BY seq', [bet.id]);
  const legs = await f.db.pool.query<{ price: string }>('SELECT price::text FROM bet_legs WHERE bet_id = $1', [bet.id]);
  return { bet, calls: calls.rows, legPrice: legs.rows[0]!.price };
}

test('a price that rose while reserving is taken at its new value, on the leg and in betMetadata', async () => {
  const { bet, calls, legPrice } = await placeWhile(1, 3, () => f.services.catalogue.setPrice(MEETING, 1, 1, { win: 3.4 }));
  assert.deepEqual([bet.status, bet.odds, bet.originalOdds], ['ACCEPTED', 3.4, 3]);
  assert.equal(legPrice, '3.4');
  const confirm = calls.find((c) => c.op === 'confirm')!;
  assert.equal(confirm.amount, '10.00');
  assert.equal(confirm.extra.betMetadata!.fixedOdds, 3.4);
});

test('a price that fell, a scratching or a closed race while reserving refuses the bet and refunds the stake', async () => {
  const cases: Array<[number, number, () => Promise<unknown>, string]> = [
    [2, 4, () => f.services.catalogue.setPrice(MEETING, 1, 2, { win: 3.8 }), 'price_changed'],
    [3, 5, () => f.services.catalogue.scratch(MEETING, 1, 3), 'runner_scratched'],
    [4, 6, () => f.services.catalogue.setStatus(MEETING, 1, 'closed'), 'race_not_open'],
  ];
  for (const [runner, price, meanwhile, code] of cases) {
    const { bet, calls } = await placeWhile(runner, price, meanwhile);
    assert.deepEqual([bet.status, bet.reasonCode], ['REJECTED', code], code);
    const sent = calls.map((c) => `${c.op} ${c.amount}`);
    assert.ok(sent.includes('refundBet 10.00'), `${code}: ${sent.join(', ')}`);
    assert.ok(!sent.some((c) => c.startsWith('confirm')), `${code}: nothing confirmed`);
  }
});
