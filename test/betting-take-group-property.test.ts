// Property: bets taken as one group (takeBets of all of them, one transaction) end exactly as the
// same bets taken one by one in the same order, one transaction each — statuses, accepted stakes,
// reasons, odds and every runner's liability — whatever the mix of kinds, races, runners, stakes
// and tenants, under tight limits (max stake, max payout, max runner liability). Two twin tenants
// per run: one's bets are grouped, the other's are taken alone; the wallet's record of the
// reserves is not part of it (its batched statement runs in every placement test).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { withTransaction } from '../src/db/pool.ts';
import { pendingBetsSql, type LegRow, type NewBet } from '../src/modules/betting/betting.queries.ts';
import { checkInput, dollars, oddsText, priceBet, type PlaceBetInput } from '../src/modules/betting/placement.ts';
import { takeBets, type TakeEntry, type Taken } from '../src/modules/betting/take-bet.ts';
import { insertReserves } from '../src/modules/wallet/outbox/placement.queries.ts';
import { bettingFixture } from './betting-fixture.ts';
import { fuzzRuns } from './helpers/fuzz.ts';

const MEETING = 880601;
let f: Awaited<ReturnType<typeof bettingFixture>>;
before(async () => {
  f = await bettingFixture(MEETING);
  await f.services.catalogue.importCatalog({
    meeting_id: MEETING, date: new Date().toISOString().slice(0, 10), venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T',
    races: [1, 2].map((r) => ({ race_number: r, start_time: new Date(Date.now() + 3600_000 * r).toISOString(), products: ['win', 'place', 'exacta'],
      runners: [1, 2, 3, 4, 5].map((n) => ({ number: n, name: `R${n}`, win: 2 + n, place: 1.5 + n / 4 })) })),
  });
});
after(() => f.close());

// Few runners and stakes near the limits, so that bets of a group meet on a runner and the limits bind.
const bet = fc.record({
  kind: fc.constantFrom('WIN', 'WIN', 'PLACE', 'MULTI', 'EXACTA'),
  race: fc.integer({ min: 1, max: 2 }),
  runner: fc.integer({ min: 1, max: 2 }),
  stakeCents: fc.oneof(fc.constantFrom(500, 1000, 2000, 3000, 4000, 6000), fc.integer({ min: 1, max: 6000 })),
  twin: fc.integer({ min: 0, max: 1 }),
});

function inputOf(b: { kind: string; race: number; runner: number; stakeCents: number }): PlaceBetInput {
  const stake = b.stakeCents / 100;
  const leg = (race: number, price?: number) => ({ meetingId: MEETING, raceNumber: race, selections: [[b.runner]], ...(price && { price }) });
  switch (b.kind) {
    case 'WIN': return { idempotencyKey: randomUUID(), type: 'WIN', stake, legs: [leg(b.race, 2 + b.runner)] };
    case 'PLACE': return { idempotencyKey: randomUUID(), type: 'PLACE', stake, legs: [leg(b.race, 1.5 + b.runner / 4)] };
    case 'MULTI': return { idempotencyKey: randomUUID(), type: 'MULTI', stake, legs: [leg(1, 2 + b.runner), leg(2, 2 + b.runner)] };
    default: return { idempotencyKey: randomUUID(), type: 'EXACTA', stake, legs: [{ meetingId: MEETING, raceNumber: b.race, selections: [[b.runner], [1 + (b.runner % 4)]] }] };
  }
}

/** The bet stored pending (as placement stores it, without its reserve), ready to be taken. */
async function pending(tenantId: string, input: PlaceBetInput): Promise<TakeEntry> {
  const { kind, stakeCents } = checkInput(input);
  const first = await priceBet(f.services.catalogue, input, kind, stakeCents);
  const bet: NewBet = {
    tenant_id: tenantId, bet_id: randomUUID(), user_id: randomUUID(), ticket_id: randomUUID(), idempotency_key: input.idempotencyKey,
    request_hash: first.requestHash, kind, stake: dollars(stakeCents), combinations: first.combinations, original_percentage: first.percentage,
    original_odds: oddsText(first.seenOdds), boxed: false, bonus: false, medium: 'internet', ip_address: null, created_at: new Date(),
  };
  const legs: LegRow[] = input.legs.map((l, i) => ({
    leg: i + 1, meeting_id: String(l.meetingId), race_number: l.raceNumber, event_id: first.races[i]!.event_id, event_name: `R${l.raceNumber}`,
    meeting_name: 'Moonee Valley', event_time: new Date(first.races[i]!.start_time), selections: l.selections,
    seen_price: l.price === undefined ? null : String(l.price), price: first.legPrices[i] ? oddsText(first.legPrices[i]!) : null,
    struck_at: bet.created_at,
  }));
  await insertReserves(f.db.pool, [], pendingBetsSql([{ bet, legs }]));
  return { bet, stored: legs, input, first };
}

const deps = () => ({ catalogue: f.services.catalogue, reporting: f.services.intake, clock: () => new Date(), limits: { startWithinMs: 60_000, lockTimeoutMs: 5000 } });
const noWallet = async (calls: unknown[]) => calls.map(() => ({}));
const outcome = (t: Taken) => [t.bet.kind, t.bet.status, t.bet.accepted_stake, t.bet.fixed_odds, t.bet.percentage, t.bet.reason_code];

async function liabilities(tenantId: string) {
  const { rows } = await f.db.pool.query(
    'SELECT race_number, runner, kind, liability FROM runner_liability WHERE tenant_id = $1 ORDER BY race_number, runner, kind', [tenantId]);
  return rows;
}

test('a group takes exactly what its bets taken one by one, in the same order, would', async () => {
  await fc.assert(fc.asyncProperty(fc.array(bet, { minLength: 4, maxLength: 24, size: 'max' }), async (bets) => {
    // Twin pairs of tenants with the same tight limits: [grouped, alone] × 2.
    const tenants: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = (await f.services.tenants.createTenant({ name: `twin ${i}` })).tenant_id;
      await f.services.betting.setLimits(id, { maxStake: '40', maxPayout: '150', maxRunnerLiability: '120' });
      tenants.push(id);
    }
    const grouped: TakeEntry[] = [];
    const alone: TakeEntry[] = [];
    for (const b of bets) {
      const input = inputOf(b);
      grouped.push(await pending(tenants[2 * b.twin]!, input));
      alone.push(await pending(tenants[2 * b.twin + 1]!, { ...input, idempotencyKey: randomUUID() }));
    }
    const together = await withTransaction(f.db.pool, (tx) => takeBets(deps(), tx, grouped, noWallet));
    const oneByOne: Taken[] = [];
    for (const e of alone) oneByOne.push((await withTransaction(f.db.pool, (tx) => takeBets(deps(), tx, [e], noWallet)))[0]!);
    assert.deepEqual(together.map((t) => t.bet.bet_id), grouped.map((e) => e.bet.bet_id), 'each result is its own bet\'s');
    assert.deepEqual(together.map(outcome), oneByOne.map(outcome));
    for (const twin of [0, 1]) assert.deepEqual(await liabilities(tenants[2 * twin]!), await liabilities(tenants[2 * twin + 1]!));
  }), fuzzRuns(12));
});
