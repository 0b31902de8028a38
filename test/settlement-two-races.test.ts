// Settlement of bets over two races: multis, daily doubles and single-race bets, cash or bonus,
// through scratchings with deductions, interim and final results, amendments, abandonments,
// cancellations, cash outs and adjustments. The wallet must see exactly what each bet's row says,
// in the balance each call moves (docs/wallet.md), and the row must be what the rules owe.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { applyBetAction, betActionArbs, placings, type BetAction } from './factories/settlement-steps.ts';
import { after, before, test } from 'node:test';
import { AppError } from '../src/errors.ts';
import { centsToDollars, parseDollars } from '../src/racing/money.ts';
import { settle } from '../src/racing/settle.ts';
import type { BetKind } from '../src/racing/bet-kinds.ts';
import { bettingFixture } from './betting-fixture.ts';
import { fuzzRuns } from './helpers/fuzz.ts';

let f: Awaited<ReturnType<typeof bettingFixture>>;
let worker: { drain(): Promise<void>; stop(): Promise<void> };
let nextMeeting = 791000;
before(async () => {
  f = await bettingFixture(790999, { openingBonus: '1000.00' });
  worker = f.services.wallet.createWorker({ listen: false });
  // Stakes above $30 are partially accepted.
  await f.services.betting.setLimits(f.tenantId, { maxStake: '30' });
});
after(async () => {
  await worker.stop();
  await f.close();
});

const cents = (v: string | null) => (v === null ? 0n : parseDollars(v)!);
const RUNNERS = [1, 2, 3, 4, 5, 6, 7, 8];
const WIN = [0, 2.1, 3.4, 4.5, 5.25, 6, 8.5, 11, 15];
const PLACE = [0, 1.2, 1.45, 1.7, 1.9, 2.2, 2.6, 3.1, 3.75];

async function meeting(meetingId: number) {
  await f.services.catalogue.importCatalog({
    meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [1, 2].map((race_number) => ({ race_number, start_time: new Date(Date.now() + 3600_000 * race_number).toISOString(),
      products: ['win', 'place', 'exacta', 'quinella', 'trifecta'],
      runners: RUNNERS.map((n) => ({ number: n, name: `R${n}`, win: WIN[n], place: PLACE[n] })) })),
    pools: [{ product: 'dailydouble', races: [1, 2] }],
  });
}

type Op =
  | { op: 'scratch'; race: number; runner: number; win: number; place: number }
  | { op: 'result'; race: number; interim: boolean; order: number[]; groups: number[] }
  | { op: 'abandon'; race: number }
  | BetAction;

const raceArb = fc.constantFrom(1, 2);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('scratch' as const), race: raceArb, runner: fc.constantFrom(...RUNNERS), win: fc.integer({ min: 0, max: 30 }), place: fc.integer({ min: 0, max: 10 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('result' as const), race: raceArb, interim: fc.boolean(), order: fc.shuffledSubarray(RUNNERS, { minLength: 8, maxLength: 8 }),
    groups: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 5 }) }), weight: 4 },
  fc.record({ op: fc.constant('abandon' as const), race: raceArb }),
  ...betActionArbs,
);

interface BetSpec { kind: BetKind; boxed: boolean; legs: Array<{ raceNumber: number; selections: number[][]; price?: number }> }

const betArb: fc.Arbitrary<BetSpec & { bonus: boolean; stakeCents: number }> = fc.record({
  kind: fc.constantFrom<BetKind>('WIN', 'PLACE', 'EXACTA', 'QUINELLA', 'TRIFECTA', 'MULTI', 'DAILY_DOUBLE'),
  a: fc.shuffledSubarray(RUNNERS, { minLength: 3, maxLength: 4 }),
  b: fc.shuffledSubarray(RUNNERS, { minLength: 1, maxLength: 3 }),
  bonus: fc.boolean(),
  stakeCents: fc.integer({ min: 1, max: 5000 }),
}).map(({ kind, a, b, bonus, stakeCents }) => {
  const spec = ((): BetSpec => {
    switch (kind) {
      case 'WIN': return { kind, boxed: false, legs: [{ raceNumber: 1, selections: [[a[0]!]], price: WIN[a[0]!] }] };
      case 'PLACE': return { kind, boxed: false, legs: [{ raceNumber: 1, selections: [[a[0]!]], price: PLACE[a[0]!] }] };
      case 'QUINELLA': return { kind, boxed: false, legs: [{ raceNumber: 1, selections: [a] }] };
      case 'MULTI': return { kind, boxed: false, legs: [{ raceNumber: 1, selections: [[a[0]!]], price: WIN[a[0]!] }, { raceNumber: 2, selections: [[b[0]!]], price: WIN[b[0]!] }] };
      case 'DAILY_DOUBLE': return { kind, boxed: false, legs: [{ raceNumber: 1, selections: [a.slice(0, 2)] }, { raceNumber: 2, selections: [b] }] };
      default: return { kind, boxed: true, legs: [{ raceNumber: 1, selections: [a] }] };
    }
  })();
  return { ...spec, bonus, stakeCents };
});

const dividendsFor = (race: number, places: number[][]) => {
  const filled = places.flat().length;
  return { ...(filled >= 2 && { exacta: 12.3, quinella: 6.4 }), ...(filled >= 3 && { trifecta: 45.6 }), ...(race === 2 && { dailydouble: 23.1 }) };
};

async function apply(meetingId: number, ref: { tenantId: string; betId: string }, step: Op, scratched: Map<number, Set<number>>): Promise<void> {
  const s = f.services;
  if (step.op === 'scratch') {
    await s.catalogue.scratch(meetingId, step.race, step.runner, { ...(step.win && { win_deduction: step.win }), ...(step.place && { place_deduction: step.place }) });
    scratched.get(step.race)!.add(step.runner);
  } else if (step.op === 'result') {
    await s.catalogue.setStatus(meetingId, step.race, 'closed').catch(() => undefined);
    const places = placings(step.order, step.groups, scratched.get(step.race)!);
    await s.settlement.resultRace(meetingId, step.race, { placings: places, dividends: dividendsFor(step.race, places), interim: step.interim });
  } else if (step.op === 'abandon') await s.catalogue.setStatus(meetingId, step.race, 'abandoned');
  else await applyBetAction(s.bets, f.db.pool, ref, step);
  await s.settlement.runPending();
}

test('two races, any bet, cash or bonus, any events: the wallet moved each balance by exactly what the bet\'s row says, and the row is what the rules owe', async () => {
  await fc.assert(fc.asyncProperty(betArb, fc.array(opArb, { minLength: 1, maxLength: 8 }), async (b, ops) => {
    const meetingId = nextMeeting++;
    await meeting(meetingId);
    const userId = randomUUID();
    const placed = await f.services.betting.placeBet(f.user(userId), {
      idempotencyKey: randomUUID(), type: b.kind, stake: b.stakeCents / 100, boxed: b.boxed, bonus: b.bonus,
      legs: b.legs.map((l) => ({ meetingId, ...l })),
    });
    assert.equal(placed.status, b.stakeCents > 3000 ? 'PARTIALLY_ACCEPTED' : 'ACCEPTED', JSON.stringify(placed));
    const ref = { tenantId: f.tenantId, betId: placed.id };
    const scratched = new Map([[1, new Set<number>()], [2, new Set<number>()]]);
    for (const step of ops) {
      try {
        await apply(meetingId, ref, step, scratched);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
    }
    await worker.drain();
    const bet = (await f.db.pool.query('SELECT * FROM bets WHERE bet_id = $1', [placed.id])).rows[0];
    const accepted = cents(bet.accepted_stake);
    const stakeBack = cents(bet.refunded) + cents(bet.partial_refund);
    // Stake, its refunds and adjustments move the bonus balance of a bonus bet; winnings and cash outs move cash.
    const expected = b.bonus
      ? { cash: 100000n + cents(bet.payout) + cents(bet.cash_out), bonus: 100000n - accepted + stakeBack + cents(bet.adjusted) }
      : { cash: 100000n - accepted + cents(bet.payout) + stakeBack + cents(bet.cash_out) + cents(bet.adjusted), bonus: 100000n };
    const balances = await f.sandbox.balances(userId);
    assert.deepEqual({ cash: balances.cash, bonus: balances.bonus }, { cash: centsToDollars(expected.cash), bonus: centsToDollars(expected.bonus) }, `balances of a ${bet.status} bet`);
    const open = await f.db.pool.query(`SELECT op, status FROM wallet_calls WHERE bet_id = $1 AND status NOT IN ('delivered', 'skipped')`, [placed.id]);
    assert.deepEqual(open.rows, [], 'every wallet call delivered');

    const legs = (await f.db.pool.query<{ price: string | null; struck_at: Date; race_number: number; selections: number[][] }>(
      'SELECT price::text, struck_at, race_number, selections FROM bet_legs WHERE bet_id = $1 ORDER BY leg', [placed.id])).rows;
    const facts = await f.services.catalogue.raceFacts([1, 2].map((raceNumber) => ({ meetingId, raceNumber })));
    const verdict = settle({
      kind: b.kind, boxed: b.boxed, bonus: b.bonus, acceptedCents: accepted, combinations: bet.combinations, percentage: bet.percentage,
      legs: legs.map((l) => ({ selections: l.selections, price: l.price, struckAt: l.struck_at, race: facts.get(`${meetingId}:${l.race_number}`)! })),
    });
    const state = [bet.status, cents(bet.payout), stakeBack];
    if (bet.status === 'settled') {
      assert.equal(verdict.state, 'settled');
      if (verdict.state === 'settled') assert.deepEqual(state, ['settled', verdict.payoutCents, verdict.partialRefundCents]);
    } else if (bet.status === 'refunded' || bet.status === 'cancelled') assert.deepEqual(state, [bet.status, 0n, accepted]);
    else if (bet.status === 'cashed_out') assert.deepEqual(state, ['cashed_out', 0n, 0n]);
    else assert.deepEqual([bet.status, verdict.state], [b.stakeCents > 3000 ? 'partially_accepted' : 'accepted', 'open']);
  }), fuzzRuns(60));
});

// A multi's abandoned leg is void, as a scratched one (docs/settlement.md): it counts 1.00 and the
// multi stands on its other legs, paid on a winner, lost on a loser (never refunded).
test('a multi with an abandoned leg stands on its other legs: paid on the winner, lost on the loser', async () => {
  const meetingId = nextMeeting++;
  await meeting(meetingId);
  const multi = async (runner: number) => {
    const placed = await f.services.betting.placeBet(f.user(randomUUID()), {
      idempotencyKey: randomUUID(), type: 'MULTI', stake: 10,
      legs: [{ meetingId, raceNumber: 1, selections: [[runner]], price: WIN[runner] }, { meetingId, raceNumber: 2, selections: [[1]], price: WIN[1] }],
    });
    assert.equal(placed.status, 'ACCEPTED');
    return placed.id;
  };
  const winner = await multi(3);
  const loser = await multi(4);
  await f.services.catalogue.setStatus(meetingId, 1, 'closed');
  await f.services.settlement.resultRace(meetingId, 1, { placings: [[3], [4], [5]], dividends: {} });
  await f.services.catalogue.setStatus(meetingId, 2, 'abandoned');
  await f.services.settlement.runPending();
  const row = async (betId: string) => (await f.db.pool.query('SELECT status, result, payout::text, refunded::text FROM bets WHERE bet_id = $1', [betId])).rows[0];
  // $10 × 4.50 (leg 2 void at 1.00) = $45.00; the loser stays lost, its stake not returned.
  assert.deepEqual(await row(winner), { status: 'settled', result: 'won', payout: '45.00', refunded: '0.00' });
  assert.deepEqual(await row(loser), { status: 'settled', result: 'lost', payout: '0.00', refunded: '0.00' });
});
