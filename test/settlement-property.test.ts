// For any sequence of scratchings, results, amendments, abandonment, cancellations, cash outs and
// adjustments on a bet, the money the wallet saw for it equals what its final state says: the
// sandbox balance moved by exactly the bet's ledger, every wallet transaction took effect once,
// and the ledger is what the settlement rules owe for the race's final facts.
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
let nextMeeting = 781000;
before(async () => {
  f = await bettingFixture(780999);
  worker = f.services.wallet.createWorker({ listen: false });
});
after(async () => {
  await worker.stop();
  await f.close();
});

type Op =
  | { op: 'scratch'; runner: number; deduction: number }
  | { op: 'result'; order: number[]; groups: number[] }
  | { op: 'abandon' }
  | BetAction;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('scratch' as const), runner: fc.integer({ min: 1, max: 8 }), deduction: fc.integer({ min: 0, max: 25 }) }),
  { arbitrary: fc.record({ op: fc.constant('result' as const), order: fc.shuffledSubarray([1, 2, 3, 4, 5, 6, 7, 8], { minLength: 8, maxLength: 8 }), groups: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 5 }) }), weight: 3 },
  fc.constant({ op: 'abandon' as const }),
  ...betActionArbs,
);

const betArb = fc.record({
  kind: fc.constantFrom<BetKind>('WIN', 'PLACE', 'EXACTA', 'TRIFECTA'),
  runners: fc.shuffledSubarray([1, 2, 3, 4, 5, 6, 7, 8], { minLength: 3, maxLength: 4 }),
  stakeCents: fc.integer({ min: 1, max: 5000 }),
});

const WIN = [0, 2.1, 3.4, 4.5, 5.25, 6, 8.5, 11, 15];
const PLACE = [0, 1.2, 1.45, 1.7, 1.9, 2.2, 2.6, 3.1, 3.75];

async function race(meetingId: number) {
  await f.services.catalogue.importCatalog({
    meeting_id: meetingId, date: new Date().toISOString().slice(0, 10), venue: 'Caulfield', jurisdiction: 'VIC', code: 'T',
    races: [{ race_number: 1, start_time: new Date(Date.now() + 3600_000).toISOString(), products: ['win', 'place', 'exacta', 'trifecta'],
      runners: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ number: n, name: `R${n}`, win: WIN[n], place: PLACE[n] })) }],
  });
}

/** The dividends of the products the placings fill. */
const dividendsFor = (places: number[][]) => {
  const filled = places.flat().length;
  return { ...(filled >= 2 && { exacta: 12.3 }), ...(filled >= 3 && { trifecta: 45.6 }) };
};

async function apply(meetingId: number, ref: { tenantId: string; betId: string }, step: Op, scratched: Set<number>): Promise<void> {
  const s = f.services;
  if (step.op === 'scratch') {
    await s.catalogue.scratch(meetingId, 1, step.runner, step.deduction ? { win_deduction: step.deduction } : {});
    scratched.add(step.runner);
  } else if (step.op === 'result') {
    await s.catalogue.setStatus(meetingId, 1, 'closed').catch(() => undefined);
    const places = placings(step.order, step.groups, scratched);
    await s.settlement.resultRace(meetingId, 1, { placings: places, dividends: dividendsFor(places) });
  } else if (step.op === 'abandon') await s.catalogue.setStatus(meetingId, 1, 'abandoned');
  else await applyBetAction(s.bets, f.db.pool, ref, step);
  await s.settlement.runPending();
}

/** The price taken on the bet's one leg and when it was struck, as stored. */
async function storedLeg(betId: string): Promise<{ price: string | null; struckAt: Date }> {
  const { rows } = await f.db.pool.query<{ price: string | null; struck_at: Date }>('SELECT price::text, struck_at FROM bet_legs WHERE bet_id = $1', [betId]);
  return { price: rows[0]!.price, struckAt: rows[0]!.struck_at };
}

test('any sequence of race and bet events: the wallet saw exactly what the bet\'s final state says', async () => {
  await fc.assert(fc.asyncProperty(betArb, fc.array(opArb, { minLength: 1, maxLength: 6 }), async (b, ops) => {
    const meetingId = nextMeeting++;
    await race(meetingId);
    const userId = randomUUID();
    const exotic = b.kind === 'EXACTA' || b.kind === 'TRIFECTA';
    const price = exotic ? undefined : (b.kind === 'PLACE' ? PLACE : WIN)[b.runners[0]!];
    const placed = await f.services.betting.placeBet(f.user(userId), {
      idempotencyKey: randomUUID(), type: b.kind, stake: b.stakeCents / 100, boxed: exotic,
      legs: [{ meetingId, raceNumber: 1, selections: exotic ? [b.runners] : [[b.runners[0]!]], ...(price && { price }) }],
    });
    assert.equal(placed.status, 'ACCEPTED', JSON.stringify(placed));
    const ref = { tenantId: f.tenantId, betId: placed.id };
    const scratched = new Set<number>();
    for (const step of ops) {
      try {
        await apply(meetingId, ref, step, scratched);
      } catch (error) {
        if (!(error instanceof AppError)) throw error; // a refused step: a clear error, nothing changed
      }
    }
    await worker.drain();
    const bet = (await f.db.pool.query('SELECT * FROM bets WHERE bet_id = $1', [placed.id])).rows[0];
    const cents = (v: string | null) => (v === null ? 0n : parseDollars(v)!);
    const accepted = cents(bet.accepted_stake);
    const expectedCash = 100000n - accepted + cents(bet.payout) + cents(bet.refunded) + cents(bet.partial_refund) + cents(bet.cash_out) + cents(bet.adjusted);
    assert.equal((await f.sandbox.balances(userId)).cash, centsToDollars(expectedCash), `balance of ${bet.status} bet`);
    const open = await f.db.pool.query(`SELECT op, status FROM wallet_calls WHERE bet_id = $1 AND status NOT IN ('delivered', 'skipped')`, [placed.id]);
    assert.deepEqual(open.rows, [], 'every wallet call delivered');
    for (const [transaction, times] of await f.sandbox.effects()) assert.ok(times <= 1, `${transaction} took effect ${times} times`);

    const facts = await f.services.catalogue.raceFacts([{ meetingId, raceNumber: 1 }]);
    const verdict = settle({
      kind: b.kind, boxed: exotic, bonus: false, acceptedCents: accepted, combinations: bet.combinations, percentage: bet.percentage,
      legs: [{ ...(await storedLeg(placed.id)), selections: exotic ? [b.runners] : [[b.runners[0]!]], race: facts.get(`${meetingId}:1`)! }],
    });
    const state = [bet.status, cents(bet.payout), cents(bet.refunded) + cents(bet.partial_refund)];
    if (bet.status === 'settled') {
      assert.equal(verdict.state, 'settled');
      if (verdict.state === 'settled') assert.deepEqual(state, ['settled', verdict.payoutCents, verdict.partialRefundCents]);
    } else if (bet.status === 'refunded' || bet.status === 'cancelled') assert.deepEqual(state, [bet.status, 0n, accepted]);
    else if (bet.status === 'cashed_out') assert.deepEqual(state, ['cashed_out', 0n, 0n]);
    else assert.deepEqual([bet.status, verdict.state], ['accepted', 'open']);
  }), fuzzRuns(25));
});
