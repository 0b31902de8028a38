// What the catalogue must say for a bet to be taken: each leg's race open and offering the
// product, each runner listed and not scratched, a multi-race bet on a pool the meeting offers, and
// the fixed-odds price policy (taken at the current price when it is at least the price the user
// saw; refused with the current price otherwise). Pure: the races come in as data.
import { KIND_RULES, type BetKind } from './bet-kinds.ts';
import { atLeast, decimal, formatOdds, type Decimal } from './stakes.ts';
import { fromNumber } from './money.ts';

export interface RunnerState {
  number: number;
  scratched: boolean;
  win: string | null;
  place: string | null;
}

export interface RaceState {
  meeting_id: number;
  race_number: number;
  status: string;
  products: string[];
  runners: RunnerState[];
  /** The fewest starters the race's place terms pay places for; null: the terms pay none. */
  place_min_starters: number | null;
}

export interface PoolState {
  product: string;
  races: number[];
}

export interface LegInput {
  meetingId: number;
  raceNumber: number;
  selections: number[][];
  /** The fixed-odds price the user saw. */
  price?: number | null;
}

export type RefusalCode =
  | 'race_not_found' | 'race_not_open' | 'product_not_offered' | 'runner_not_found' | 'runner_scratched'
  | 'price_required' | 'price_changed' | 'invalid_selection';

export interface Refusal {
  code: RefusalCode;
  message: string;
}

/** The prices taken for a fixed-odds bet, one per leg; none for tote bets. */
export type Checked = { ok: true; prices: Decimal[] } | { ok: false; refusal: Refusal };

const refuse = (code: RefusalCode, message: string): Checked => ({ ok: false, refusal: { code, message } });

/** `races[i]` is the race of `legs[i]` (undefined when the catalogue has no such race). */
export function checkPlacement(kind: BetKind, legs: LegInput[], races: Array<RaceState | undefined>, pools: PoolState[]): Checked {
  const rule = KIND_RULES[kind];
  const multiRace = refuseLegRaces(kind, legs, pools);
  if (multiRace) return multiRace;
  const prices: Decimal[] = [];
  for (const [i, leg] of legs.entries()) {
    const race = races[i];
    const where = `legs[${i}] (meeting ${leg.meetingId} race ${leg.raceNumber})`;
    if (!race) return refuse('race_not_found', `${where}: no such race in the catalogue`);
    if (race.status !== 'open') return refuse('race_not_open', `${where}: the race is ${race.status}, not open for betting`);
    const product = rule.legs === 1 || kind === 'MULTI' ? rule.product : undefined;
    if (product && !race.products.includes(product)) return refuse('product_not_offered', `${where}: ${product} is not offered on this race`);
    const noPlaces = kind === 'PLACE' ? noPlaceBetting(race) : undefined;
    if (noPlaces) return refuse('product_not_offered', `${where}: ${noPlaces}`);
    for (const runnerNumber of new Set(leg.selections.flat())) {
      const runner = race.runners.find((r) => r.number === runnerNumber);
      if (!runner) return refuse('runner_not_found', `${where}: runner ${runnerNumber} is not in the race`);
      if (runner.scratched) return refuse('runner_scratched', `${where}: runner ${runnerNumber} is scratched`);
    }
    if (rule.pricing === 'fixed') {
      const taken = takePrice(kind, leg, race, where);
      if ('ok' in taken) return taken;
      prices.push(taken);
    }
  }
  return { ok: true, prices };
}

/**
 * A field too small for the place terms: a place bet on it would only be refunded at the result.
 * Scratchings after the bet are settlement's to judge (the starters when the race is resulted).
 */
function noPlaceBetting(race: RaceState): string | undefined {
  const starters = race.runners.filter((r) => !r.scratched).length;
  if (race.place_min_starters === null) return 'no place betting: the place terms of its jurisdiction pay no places';
  if (starters < race.place_min_starters) return `no place betting: ${starters} starters, places are paid from ${race.place_min_starters}`;
  return undefined;
}

/** Multi-race bets: a quaddie or daily double on the races of a pool; a multi on different races. */
function refuseLegRaces(kind: BetKind, legs: LegInput[], pools: PoolState[]): Checked | undefined {
  if (kind === 'MULTI') {
    const keys = legs.map((l) => `${l.meetingId}/${l.raceNumber}`);
    if (new Set(keys).size !== keys.length) return refuse('invalid_selection', 'a MULTI takes each race once');
    return undefined;
  }
  if (kind !== 'QUADDIE' && kind !== 'DAILY_DOUBLE') return undefined;
  const product = KIND_RULES[kind].product;
  const meeting = legs[0]!.meetingId;
  // Pools are a meeting's: a leg elsewhere is named, not read as a pool the meeting lacks.
  const away = legs.findIndex((l) => l.meetingId !== meeting);
  if (away >= 0) {
    return refuse('product_not_offered', `legs[${away}] is on meeting ${legs[away]!.meetingId}, legs[0] on meeting ${meeting}: a ${kind}'s legs are races of one meeting, the races of its ${product} pool`);
  }
  const races = legs.map((l) => l.raceNumber).join(',');
  if (!pools.some((p) => p.product === product && p.races.join(',') === races)) {
    return refuse('product_not_offered', `no ${product} pool on races ${races} of meeting ${meeting}: its legs must be the pool's races, in order`);
  }
  return undefined;
}

function takePrice(kind: BetKind, leg: LegInput, race: RaceState, where: string): Decimal | Checked {
  const runner = race.runners.find((r) => r.number === leg.selections[0]![0])!;
  const current = kind === 'PLACE' ? runner.place : runner.win;
  const currentPrice = current === null ? undefined : decimal(current);
  if (!currentPrice) return refuse('product_not_offered', `${where}: runner ${runner.number} has no ${kind === 'PLACE' ? 'place' : 'win'} price`);
  if (leg.price === undefined || leg.price === null) return refuse('price_required', `${where}: price (the price the user saw) is required for a fixed-odds leg`);
  if (!Number.isFinite(leg.price) || leg.price < 1) return refuse('invalid_selection', `${where}: price must be a decimal price of at least 1`);
  // Compared with every decimal sent: rounded to fewer places, a seen 3.00000001 would pass as 3.
  const places = fromNumber(leg.price, 0).sentPlaces;
  if (!atLeast(currentPrice, { units: fromNumber(leg.price, places).units, places })) {
    return refuse('price_changed', `${where}: the price of runner ${runner.number} is now ${formatOdds(currentPrice)}, below the ${leg.price} seen`);
  }
  return currentPrice;
}
