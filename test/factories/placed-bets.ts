// Taken bets written straight into the tables, as a placement leaves them (docs/betting.md), for
// tests and benchmarks that need thousands of them: placeBet takes ~60 bets/s end to end, this
// 1,200–3,000/s on 2 busy cores. Each bet is checked and priced by placement's own code (catalogue checks,
// combinations, percentage, odds, request hash) against the races read once, then written in bulk,
// one transaction per chunk: the bet accepted in full (the factory applies no tenant limits), its
// legs, its two history entries (pending, accepted), the runner liability of WIN and PLACE bets, and
// the outbox of a placement whose wallet calls went through — the reserve delivered (one attempt),
// the placement guard skipped, the confirm with its betMetadata delivered (one attempt), the bet's
// sequence at 3. The wallet must know the bets too: hand sandboxSeeds(placed) to the sandbox's
// seedBets. betMix() makes a realistic mix of bets on one race.
import { randomUUID } from 'node:crypto';
import type { Pool } from '../../src/db/pool.ts';
import { withTransaction } from '../../src/db/pool.ts';
import type { BetRow, LegRow } from '../../src/modules/betting/betting.queries.ts';
import { betMetadata } from '../../src/modules/betting/bet-view.ts';
import { checkInput, dollars, oddsText, priceBet, type CatalogueRace, type CatalogueReader, type PlaceBetInput } from '../../src/modules/betting/placement.ts';
import type { PoolState } from '../../src/racing/placement-checks.ts';
import { payoutCents, payoutMultiple } from '../../src/racing/stakes.ts';
import type { SeededBet } from '../../src/tools/wallet-sandbox/index.ts';
import { prng } from './bet-factory.ts';

/** A bet to place: its user and the input placeBet would get (a fixed-odds leg without `price` is taken at the current price). */
export interface PlannedBet {
  userId: string;
  input: PlaceBetInput;
}

/** A bet as written, with what the wallet side needs to know of it. */
export interface PlacedBet {
  betId: string;
  userId: string;
  kind: string;
  bonus: boolean;
  /** Dollars ("12.50"): asked for, and accepted (the same: no limits). */
  stake: string;
  accepted: string;
  reserveTransactionId: string;
  confirmTransactionId: string;
}

export interface MixOptions {
  count: number;
  meetingId: number;
  /** The race every bet has a leg on. */
  raceNumber: number;
  /** Runners of the race (numbered from 1); at least 6. */
  runners: number;
  /** Another race of the meeting: 5% of the bets are 2-leg multis on it and `raceNumber`. Omitted: no multis. */
  multiRace?: number;
  /** Number of distinct users (default count / 5). */
  users?: number;
  seed?: number;
}

/**
 * A realistic mix on one race: 50% WIN and 25% PLACE at fixed odds, 5% 2-leg MULTI (with
 * `multiRace`; WIN otherwise), 8% TRIFECTA (boxed or standout), 5% EXACTA, 4% QUINELLA, 3% FIRST_FOUR;
 * stakes mostly whole dollars from $1 to $50, some to $200, 5% with cents; 3% bonus bets.
 * Kinds, selections and stakes are deterministic for a seed; ids and keys are new every call.
 */
export function betMix(o: MixOptions): PlannedBet[] {
  if (o.runners < 6) throw new RangeError('betMix needs a race of at least 6 runners');
  const rand = prng(o.seed ?? 7);
  const pick = (n: number) => 1 + Math.floor(rand() * n);
  const distinct = (k: number): number[] => {
    const out = new Set<number>();
    while (out.size < k) out.add(pick(o.runners));
    return [...out];
  };
  const users = Array.from({ length: Math.max(1, o.users ?? Math.ceil(o.count / 5)) }, () => randomUUID());
  const leg = (selections: number[][]) => ({ meetingId: o.meetingId, raceNumber: o.raceNumber, selections });
  return Array.from({ length: o.count }, () => {
    const r = rand();
    const s = rand();
    const stake = s < 0.05 ? Math.round((1 + rand() * 20) * 100) / 100 : s < 0.2 ? 50 + Math.floor(rand() * 151) : pick(50);
    const base = { idempotencyKey: randomUUID(), stake, bonus: rand() < 0.03 };
    let input: PlaceBetInput;
    if (r < 0.5 || (r >= 0.75 && r < 0.8 && o.multiRace === undefined)) input = { ...base, type: 'WIN', legs: [leg([[pick(o.runners)]])] };
    else if (r < 0.75) input = { ...base, type: 'PLACE', legs: [leg([[pick(o.runners)]])] };
    else if (r < 0.8) {
      input = { ...base, type: 'MULTI', legs: [{ meetingId: o.meetingId, raceNumber: o.multiRace!, selections: [[pick(o.runners)]] }, leg([[pick(o.runners)]])] };
    } else if (r < 0.88) {
      const boxed = rand() < 0.5;
      const [a, b, c, d, e] = distinct(5) as [number, number, number, number, number];
      input = boxed ? { ...base, type: 'TRIFECTA', boxed, legs: [leg([rand() < 0.5 ? [a, b, c] : [a, b, c, d]])] }
        : { ...base, type: 'TRIFECTA', legs: [leg([[a], [b, c], [b, c, d, e]])] };
    } else if (r < 0.93) {
      const [a, b, c] = distinct(3) as [number, number, number];
      input = { ...base, type: 'EXACTA', legs: [leg(rand() < 0.5 ? [[a], [b]] : [[a, b], [a, b, c]])] };
    } else if (r < 0.97) input = { ...base, type: 'QUINELLA', legs: [leg([distinct(rand() < 0.5 ? 2 : 3)])] };
    else input = { ...base, type: 'FIRST_FOUR', boxed: true, legs: [leg([distinct(4)])] };
    return { userId: users[Math.floor(rand() * users.length)]!, input };
  });
}

/** What the wallet sandbox's seedBets needs to know each bet as reserved and confirmed. */
export function sandboxSeeds(placed: PlacedBet[]): SeededBet[] {
  return placed.map((b) => ({
    betId: b.betId, userId: b.userId, bonusFlag: b.bonus, reserved: b.stake, confirmed: b.accepted,
    reserveTransactionId: b.reserveTransactionId, confirmTransactionId: b.confirmTransactionId,
  }));
}

interface Row {
  bet: BetRow;
  legs: LegRow[];
  reserve: string;
  guard: string;
  confirm: string;
  extraReserve: string;
  extraConfirm: string;
  /** WIN/PLACE: the runner liability added, in cents. */
  liability?: { runner: number; kind: string; cents: bigint };
}

const ms = (d: Date, n: number) => new Date(d.getTime() + n);

/** Reads each race once and answers placement's reads from memory. */
async function cachedCatalogue(catalogue: CatalogueReader, planned: PlannedBet[]): Promise<CatalogueReader> {
  const races = new Map<string, CatalogueRace | undefined>();
  const pools = new Map<number, PoolState[]>();
  for (const { input } of planned) {
    for (const l of input.legs) {
      const key = `${l.meetingId}/${l.raceNumber}`;
      if (!races.has(key)) races.set(key, await catalogue.getRace(l.meetingId, l.raceNumber));
      if (!pools.has(l.meetingId)) pools.set(l.meetingId, await catalogue.getPools(l.meetingId));
    }
  }
  return {
    getRace: async (meetingId, raceNumber) => races.get(`${meetingId}/${raceNumber}`),
    getPools: async (meetingId) => pools.get(meetingId) ?? [],
  };
}

/** The bet's rows, priced by placement's code; times step from `at`. */
async function rowOf(reader: CatalogueReader, tenantId: string, { userId, input: given }: PlannedBet, at: Date): Promise<Row> {
  const races = await Promise.all(given.legs.map((l) => reader.getRace(l.meetingId, l.raceNumber)));
  // A fixed-odds leg without a price is taken at the price shown now.
  const input: PlaceBetInput = {
    ...given,
    legs: given.legs.map((l, i) => {
      if (l.price !== undefined && l.price !== null) return l;
      const runner = races[i]?.runners.find((r) => r.number === l.selections[0]![0]);
      const shown = given.type === 'PLACE' ? runner?.place : runner?.win;
      return shown && (given.type === 'WIN' || given.type === 'PLACE' || given.type === 'MULTI') ? { ...l, price: Number(shown) } : l;
    }),
  };
  const { kind, stakeCents } = checkInput(input);
  const priced = await priceBet(reader, input, kind, stakeCents);
  const stake = dollars(stakeCents);
  const odds = oddsText(priced.odds);
  const accepted = at;
  const bet: BetRow = {
    tenant_id: tenantId, bet_id: randomUUID(), user_id: userId, ticket_id: randomUUID(), idempotency_key: input.idempotencyKey,
    request_hash: priced.requestHash, kind, status: 'accepted', stake, accepted_stake: stake, combinations: priced.combinations,
    original_percentage: priced.percentage, percentage: priced.percentage, original_odds: oddsText(priced.seenOdds), fixed_odds: odds,
    boxed: input.boxed === true, bonus: input.bonus === true, bet_limit: null, reason_code: null, reason: null, medium: 'internet', ip_address: null,
    created_at: ms(at, -40), updated_at: accepted, result: null, payout: '0.00', refunded: '0.00', partial_refund: '0.00', cash_out: null,
    adjusted: '0.00', settled_at: null, cancel_reason: null,
  };
  const legs: LegRow[] = input.legs.map((l, i) => {
    const race = races[i]!;
    return {
      leg: i + 1, meeting_id: String(l.meetingId), race_number: l.raceNumber, event_id: race.event_id,
      event_name: `${race.meeting_name} R${race.race_number}`, meeting_name: race.meeting_name, event_time: new Date(race.start_time),
      selections: l.selections, seen_price: l.price === undefined || l.price === null ? null : String(l.price),
      price: priced.legPrices[i] ? oddsText(priced.legPrices[i]!) : null, struck_at: bet.created_at,
    };
  });
  const single = kind === 'WIN' || kind === 'PLACE';
  return {
    bet, legs, reserve: randomUUID(), guard: randomUUID(), confirm: randomUUID(),
    extraReserve: JSON.stringify({ metadata: { userId, brandName: 'Bench', brandUserId: userId, data: '{}' } }),
    extraConfirm: JSON.stringify({ betMetadata: betMetadata(bet, legs, { status: 'accepted', accepted: stake, percentage: priced.percentage, odds }) }),
    ...(single && priced.odds && { liability: { runner: input.legs[0]!.selections[0]![0]!, kind, cents: payoutCents(stakeCents, payoutMultiple(priced.odds, input.bonus === true)) } }),
  };
}

const col = <T, V>(rows: T[], f: (row: T) => V): V[] => rows.map(f);

async function writeChunk(db: Pool, tenantId: string, unit: string, rows: Row[]): Promise<void> {
  const bets = rows.map((r) => r.bet);
  const legs = rows.flatMap((r) => r.legs.map((l) => ({ ...l, bet_id: r.bet.bet_id })));
  await withTransaction(db, async (tx) => {
    await tx.query(
      `INSERT INTO bets (tenant_id, bet_id, user_id, ticket_id, idempotency_key, request_hash, kind, status, stake, accepted_stake, combinations,
                         original_percentage, percentage, original_odds, fixed_odds, boxed, bonus, medium, created_at, updated_at)
       SELECT $1::uuid, * FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::numeric[], $10::numeric[],
                                $11::int[], $12::numeric[], $13::numeric[], $14::numeric[], $15::numeric[], $16::bool[], $17::bool[], $18::text[],
                                $19::timestamptz[], $20::timestamptz[])`,
      [tenantId, col(bets, (b) => b.bet_id), col(bets, (b) => b.user_id), col(bets, (b) => b.ticket_id), col(bets, (b) => b.idempotency_key),
        col(bets, (b) => b.request_hash), col(bets, (b) => b.kind), col(bets, (b) => b.status), col(bets, (b) => b.stake), col(bets, (b) => b.accepted_stake),
        col(bets, (b) => b.combinations), col(bets, (b) => b.original_percentage), col(bets, (b) => b.percentage), col(bets, (b) => b.original_odds),
        col(bets, (b) => b.fixed_odds), col(bets, (b) => b.boxed), col(bets, (b) => b.bonus), col(bets, (b) => b.medium), col(bets, (b) => b.created_at),
        col(bets, (b) => b.updated_at)]);
    await tx.query(
      `INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, seen_price, price,
                             struck_at)
       SELECT $1::uuid, * FROM unnest($2::uuid[], $3::int[], $4::bigint[], $5::int[], $6::uuid[], $7::text[], $8::text[], $9::timestamptz[], $10::jsonb[],
                                $11::numeric[], $12::numeric[], $13::timestamptz[])`,
      [tenantId, col(legs, (l) => l.bet_id), col(legs, (l) => l.leg), col(legs, (l) => l.meeting_id), col(legs, (l) => l.race_number),
        col(legs, (l) => l.event_id), col(legs, (l) => l.event_name), col(legs, (l) => l.meeting_name), col(legs, (l) => l.event_time),
        col(legs, (l) => JSON.stringify(l.selections)), col(legs, (l) => l.seen_price), col(legs, (l) => l.price), col(legs, (l) => l.struck_at)]);
    await tx.query(
      `INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause)
       SELECT $1::uuid, b.bet_id, h.seq, CASE h.seq WHEN 1 THEN b.created_at ELSE b.updated_at END, h.from_status, h.to_status, h.cause
         FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS b(bet_id, created_at, updated_at),
              (VALUES (1, NULL::text, 'pending', 'placement'), (2, 'pending', 'accepted', 'accepted')) AS h(seq, from_status, to_status, cause)`,
      [tenantId, col(bets, (b) => b.bet_id), col(bets, (b) => b.created_at), col(bets, (b) => b.updated_at)]);
    // reserve (seq 1) and confirm (seq 3) delivered, the placement guard (seq 2) skipped when the confirm was queued.
    await tx.query(
      `WITH b AS (
         SELECT * FROM unnest($3::uuid[], $4::uuid[], $5::numeric[], $6::numeric[], $7::bool[], $8::timestamptz[], $9::uuid[], $10::uuid[], $11::uuid[],
                              $12::jsonb[], $13::jsonb[])
           AS b(bet_id, user_id, stake, accepted, bonus, at, reserve, guard, confirm, extra_reserve, extra_confirm)
       ), calls AS (
         INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag, extra, only_if_reserved,
                                   placement_guard, status, attempts, next_attempt_at, created_at, finished_at, last_http_status, note)
         SELECT $1::uuid, c.* FROM b, LATERAL (VALUES
           (b.reserve, b.bet_id, 1, b.user_id, 'reserve', b.stake, $2::text, b.bonus, b.extra_reserve, false, false, 'delivered', 1,
            b.at - interval '30 ms', b.at - interval '30 ms', b.at - interval '20 ms', 200, NULL::text),
           (b.guard, b.bet_id, 2, b.user_id, 'refundBet', b.stake, $2::text, b.bonus, '{}'::jsonb, true, true, 'skipped', 0,
            b.at + interval '60 s' - interval '20 ms', b.at - interval '20 ms', b.at, NULL,
            'not sent: placement queued its next call in time (placement guard)'),
           (b.confirm, b.bet_id, 3, b.user_id, 'confirm', b.accepted, $2::text, b.bonus, b.extra_confirm, false, false, 'delivered', 1,
            b.at, b.at, b.at + interval '10 ms', 200, NULL)) AS c
       ), seqs AS (
         INSERT INTO wallet_bet_sequences (tenant_id, bet_id, last_seq) SELECT $1::uuid, bet_id, 3 FROM b
       )
       INSERT INTO wallet_call_attempts (tenant_id, transaction_id, attempt, started_at, duration_ms, http_status, outcome, response_body, worker)
       SELECT $1::uuid, a.transaction_id, 1, a.started_at, 5, 200, 'success', json_build_object('success', true, 'transactionId', a.transaction_id)::text, a.worker
         FROM b, LATERAL (VALUES (b.reserve, b.at - interval '25 ms', 'reserve/' || b.reserve), (b.confirm, b.at + interval '5 ms', 'placed-bets')) AS a(transaction_id, started_at, worker)`,
      [tenantId, unit, col(bets, (b) => b.bet_id), col(bets, (b) => b.user_id), col(bets, (b) => b.stake), col(bets, (b) => b.accepted_stake),
        col(bets, (b) => b.bonus), col(bets, (b) => b.updated_at), col(rows, (r) => r.reserve), col(rows, (r) => r.guard), col(rows, (r) => r.confirm),
        col(rows, (r) => r.extraReserve), col(rows, (r) => r.extraConfirm)]);
  });
}

/**
 * Writes `planned` as taken bets of `tenantId` (which must have a wallet configured), in chunks of
 * `chunk` bets per transaction. Placement's checks apply: the races must be open, the runners
 * running. Created times step back from `at` (default now), 1 ms per bet.
 */
export async function insertPlacedBets(db: Pool, catalogue: CatalogueReader, tenantId: string, planned: PlannedBet[],
  options: { at?: Date; chunk?: number } = {}): Promise<PlacedBet[]> {
  const { rows: cfg } = await db.query<{ amount_unit: string }>('SELECT amount_unit FROM wallet_configs WHERE tenant_id = $1', [tenantId]);
  if (!cfg[0]) throw new Error(`tenant ${tenantId} has no wallet configured`);
  const reader = await cachedCatalogue(catalogue, planned);
  const at = options.at ?? new Date();
  const chunk = options.chunk ?? 5000;
  const placed: PlacedBet[] = [];
  const liability = new Map<string, bigint>();
  for (let start = 0; start < planned.length; start += chunk) {
    const rows: Row[] = [];
    for (let i = start; i < Math.min(planned.length, start + chunk); i++) {
      rows.push(await rowOf(reader, tenantId, planned[i]!, ms(at, i - planned.length)));
    }
    await writeChunk(db, tenantId, cfg[0].amount_unit, rows);
    for (const r of rows) {
      placed.push({ betId: r.bet.bet_id, userId: r.bet.user_id, kind: r.bet.kind, bonus: r.bet.bonus, stake: r.bet.stake, accepted: r.bet.accepted_stake!,
        reserveTransactionId: r.reserve, confirmTransactionId: r.confirm });
      if (r.liability) {
        const leg = r.legs[0]!;
        const key = [leg.meeting_id, leg.race_number, r.liability.runner, r.liability.kind].join('/');
        liability.set(key, (liability.get(key) ?? 0n) + r.liability.cents);
      }
    }
  }
  const keys = [...liability.keys()].map((k) => k.split('/'));
  await db.query(
    `INSERT INTO runner_liability (tenant_id, meeting_id, race_number, runner, kind, liability)
     SELECT $1::uuid, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::text[], $6::numeric[])
     ON CONFLICT (tenant_id, meeting_id, race_number, runner, kind) DO UPDATE SET liability = runner_liability.liability + excluded.liability`,
    [tenantId, keys.map((k) => k[0]), keys.map((k) => Number(k[1])), keys.map((k) => Number(k[2])), keys.map((k) => k[3]),
      [...liability.values()].map((c) => dollars(c))]);
  return placed;
}
