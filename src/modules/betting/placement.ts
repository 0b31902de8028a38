// What a placement needs checked and computed before any write: the input's shape, the stake, the
// catalogue's say (races open, runners running, prices), the combinations and the percentage.
// Nothing here writes; a refusal is an AppError with a stable code and nothing is stored.
import { createHash } from 'node:crypto';
import { grouped } from '../../db/grouped.ts';
import type { Queryable } from '../../db/pool.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { unstorable } from '../../http/text-rules.ts';
import { BET_KINDS, KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { combinations, selectionProblem } from '../../racing/combinations.ts';
import { centsToDollars, formatDecimal, fromNumber } from '../../racing/money.ts';
import { checkPlacement, type LegInput, type PoolState, type RaceState } from '../../racing/placement-checks.ts';
import { decimal, formatOdds, MAX_PAYOUT_CENTS, multiply, parseStake, payoutCents, percentageUnits, PERCENTAGE_PLACES, type Decimal } from '../../racing/stakes.ts';

export interface PlaceBetInput {
  idempotencyKey: string;
  type: string;
  legs: LegInput[];
  stake: number;
  boxed?: boolean | null;
  bonus?: boolean | null;
}

/** What bet placement reads of a race: the catalogue's race view satisfies it. */
export interface CatalogueRace extends RaceState {
  event_id: string;
  meeting_name: string;
  start_time: string;
}

export interface CatalogueReader {
  getRace(meetingId: number, raceNumber: number, options?: { tx?: Queryable; lock?: boolean }): Promise<CatalogueRace | undefined>;
  getPools(meetingId: number, options?: { tx?: Queryable }): Promise<PoolState[]>;
}

export interface Priced {
  kind: BetKind;
  stakeCents: bigint;
  combinations: number;
  /** Fixed odds: the odds taken (a multi's product) and those the user saw. */
  odds: Decimal | null;
  seenOdds: Decimal | null;
  legPrices: Decimal[];
  /** Tote: the percentage of the whole stake, as a decimal string. */
  percentage: string | null;
  races: CatalogueRace[];
  requestHash: string;
}

const bad = (code: ErrorCode, message: string) => new AppError(code, message);

const MAX_PERCENTAGE_UNITS = 10n ** 14n;

/** The least stake, in cents, whose percentage is not 0 at 4 places: combinations ÷ 10,000, rounded up. */
export const minimumToteStake = (combinations: number): bigint => (BigInt(combinations) + 9_999n) / 10_000n;

/** Checks the input alone (no database): kind, key, selections, stake. */
export function checkInput(input: PlaceBetInput): { kind: BetKind; stakeCents: bigint } {
  if (!(BET_KINDS as readonly string[]).includes(input.type)) throw bad('invalid_selection', `type must be one of ${BET_KINDS.join(', ')}`);
  const kind = input.type as BetKind;
  const key = input.idempotencyKey;
  if (key.length < 1 || key.length > 128 || /[\u0000-\u001f\u007f]/.test(key) || unstorable(key)) {
    throw bad('bad_request', 'idempotencyKey must be 1 to 128 characters, without control characters or unpaired surrogates');
  }
  const problem = selectionProblem(kind, input.legs.map((l) => l.selections), input.boxed === true);
  if (problem) throw bad('invalid_selection', problem);
  // Every price sent is the price the user saw, kept with the bet: a tote leg's too.
  for (const [i, leg] of input.legs.entries()) {
    if (leg.price !== undefined && leg.price !== null && !(Number.isFinite(leg.price) && leg.price >= 1)) {
      throw bad('invalid_selection', `legs[${i}]: price must be a decimal price of at least 1`);
    }
  }
  const stake = parseStake(input.stake);
  if (typeof stake === 'string') throw bad('invalid_stake', stake);
  if (KIND_RULES[kind].pricing !== 'fixed') {
    const count = combinations(kind, input.legs.map((l) => l.selections), input.boxed === true);
    const units = percentageUnits(stake, count);
    // The percentage is kept to 4 places: one that rounds to 0 would take a stake that can win nothing.
    if (units === 0n) {
      throw bad('invalid_stake', `stake is below 0.0001 % a combination: ${count} combinations need a stake of at least ${centsToDollars(minimumToteStake(count))}`);
    }
    // The percentage is kept as NUMERIC(14,4): below 10,000,000,000 %, i.e. $100,000,000 a combination.
    if (units >= MAX_PERCENTAGE_UNITS) {
      throw bad('invalid_stake', `stake must be below $100,000,000 a combination (${count} here): the percentage would be 10,000,000,000 % or more`);
    }
  }
  return { kind, stakeCents: stake };
}

/**
 * A digest of the request as the user meant it: a replay with another body is refused. The runners
 * of one position (or leg) are a set, so they are hashed in order: a frontend that rebuilds the
 * request from the runners picked may list them otherwise, and its retry is still the same bet.
 * Numbers need no care: 1 and 1.0 are one JSON number. Positions and legs keep their order.
 */
export function requestHash(input: PlaceBetInput): string {
  const canonical = JSON.stringify([input.type, input.stake, input.boxed === true, input.bonus === true,
    input.legs.map((l) => [l.meetingId, l.raceNumber, l.selections.map((runners) => [...runners].sort((a, b) => a - b)), l.price ?? null])]);
  return createHash('sha256').update(canonical).digest('hex');
}

const needsPools = (kind: BetKind) => kind === 'QUADDIE' || kind === 'DAILY_DOUBLE';

/**
 * The catalogue's unlocked race reads shared by the placements that ask for the same race while a
 * read of it runs (db/grouped.ts): they get the read that starts once it ends, so every read still
 * starts after its askers asked. A placement's first check reads its races so; the take, which
 * decides, reads them again under a lock.
 */
export function sharedRaceReads(catalogue: CatalogueReader): CatalogueReader {
  const read = grouped<string, undefined, CatalogueRace | undefined>({
    max: 1000,
    together: async (key, askers) => {
      const [meeting, race] = key.split('/').map(Number) as [number, number];
      const found = await catalogue.getRace(meeting, race);
      return askers.map(() => found);
    },
  });
  return {
    getRace: (meetingId, raceNumber, options) => (options?.tx || options?.lock
      ? catalogue.getRace(meetingId, raceNumber, options)
      : read(raceKey(meetingId, raceNumber), undefined, () => catalogue.getRace(meetingId, raceNumber))),
    getPools: (meetingId, options) => catalogue.getPools(meetingId, options),
  };
}

/** Reads the races (no lock: the take checks again under one), applies the catalogue checks and prices the bet. */
export async function priceBet(catalogue: CatalogueReader, input: PlaceBetInput, kind: BetKind, stakeCents: bigint): Promise<Priced> {
  const races = await Promise.all(input.legs.map((l) => catalogue.getRace(l.meetingId, l.raceNumber)));
  const pools = needsPools(kind) ? await catalogue.getPools(input.legs[0]!.meetingId) : [];
  return priceWith(input, kind, stakeCents, races, pools);
}

/** What the bets of one take read of the catalogue, under share locks: races by "meeting/race", pools by meeting. */
export interface LockedCatalogue {
  races: Map<string, CatalogueRace | undefined>;
  pools: Map<number, PoolState[]>;
}

const raceKey = (meetingId: number, raceNumber: number) => `${meetingId}/${raceNumber}`;

/**
 * The races of every leg of `bets`, each read once under a share lock, taken in (meeting, race)
 * order — the order imports and status changes lock in — so that two takes never wait on each other
 * in a cycle; and the pools of the meetings whose multi-race bets need them.
 */
export async function lockCatalogue(catalogue: CatalogueReader, tx: Queryable, bets: Array<{ input: PlaceBetInput; kind: BetKind }>): Promise<LockedCatalogue> {
  const order = [...new Map(bets.flatMap((b) => b.input.legs).map((l) => [raceKey(l.meetingId, l.raceNumber), [l.meetingId, l.raceNumber] as const])).values()]
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const races = new Map<string, CatalogueRace | undefined>();
  for (const [meeting, race] of order) races.set(raceKey(meeting, race), await catalogue.getRace(meeting, race, { tx, lock: true }));
  const pools = new Map<number, PoolState[]>();
  for (const meeting of new Set(bets.filter((b) => needsPools(b.kind)).map((b) => b.input.legs[0]!.meetingId))) {
    pools.set(meeting, await catalogue.getPools(meeting, { tx }));
  }
  return { races, pools };
}

/** priceWith on what lockCatalogue read. */
export function priceLocked(locked: LockedCatalogue, input: PlaceBetInput, kind: BetKind, stakeCents: bigint): Priced {
  const races = input.legs.map((l) => locked.races.get(raceKey(l.meetingId, l.raceNumber)));
  return priceWith(input, kind, stakeCents, races, needsPools(kind) ? locked.pools.get(input.legs[0]!.meetingId) ?? [] : []);
}

/** Applies the catalogue checks to the races read and prices the bet; a refusal is thrown as an AppError. */
function priceWith(input: PlaceBetInput, kind: BetKind, stakeCents: bigint, races: Array<CatalogueRace | undefined>, pools: PoolState[]): Priced {
  const checked = checkPlacement(kind, input.legs, races, pools);
  if (!checked.ok) throw bad(checked.refusal.code, checked.refusal.message);
  const count = combinations(kind, input.legs.map((l) => l.selections), input.boxed === true);
  const fixed = KIND_RULES[kind].pricing === 'fixed';
  const odds = fixed ? multiply(checked.prices) : null;
  // A payout must fit its columns (MAX_PAYOUT_CENTS): a long multi at long prices could return more.
  if (odds && payoutCents(stakeCents, odds) >= MAX_PAYOUT_CENTS) {
    throw bad('invalid_stake', `the bet could return ${formatOdds(odds)} × the stake, $1,000,000,000,000 or more: lower the stake`);
  }
  const seen = fixed ? input.legs.map((l) => seenPrice(l.price!)) : [];
  return {
    kind,
    stakeCents,
    combinations: count,
    odds,
    seenOdds: fixed ? multiply(seen) : null,
    legPrices: checked.prices,
    percentage: fixed ? null : percentageText(stakeCents, count),
    races: races as CatalogueRace[],
    requestHash: requestHash(input),
  };
}

export function percentageText(stakeCents: bigint, count: number): string {
  return formatDecimal(percentageUnits(stakeCents, count), PERCENTAGE_PLACES, 'fixed');
}

/** A seen price (a JSON number) as the decimal its sender wrote (to 6 places), trailing zeros dropped. */
function seenPrice(price: number): Decimal {
  return decimal(formatDecimal(fromNumber(price, 6).units, 6, 'trim'))!;
}

export const oddsText = (odds: Decimal | null): string | null => (odds ? formatOdds(odds) : null);
export const dollars = centsToDollars;
