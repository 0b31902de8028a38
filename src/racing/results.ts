// A race's result as settlement reads it: the placings (places in order, each with the runners
// sharing it: a dead heat is two runners in one place), the tote dividends per $1 unit, and the
// places paid by the number of starters. Pure: checked here, stored by the catalogue, read by
// settlement (racing/settle.ts). docs/settlement.md states every rule with an example.
import { numberToDecimal } from './money.ts';
import { isObject } from './values.ts';

export const TOTE_PRODUCTS = ['exacta', 'quinella', 'trifecta', 'firstfour', 'quaddie', 'dailydouble'] as const;
export type ToteProduct = (typeof TOTE_PRODUCTS)[number];

/** A declared dividend: for one winning combination (`runners`, in finishing order) or, without
 * `runners`, for every winning combination of the product. Decimal text per $1 unit. */
export interface DividendEntry {
  runners?: number[];
  dividend: string;
}
export type Dividends = Partial<Record<ToteProduct, DividendEntry[]>>;

/** Runners sharing one place at most: a dead heat of more is not a race result. */
export const MAX_DEAD_HEAT = 8;

export interface RunnerState {
  number: number;
  scratched: boolean;
}

/** Why `value` is not a placings list of this race, or the list itself. */
export function parsePlacings(value: unknown, runners: RunnerState[]): number[][] | string {
  if (!Array.isArray(value) || value.length === 0) return 'placings must be a non-empty list of places, e.g. [[4],[7,2],[1]]';
  const known = new Map(runners.map((r) => [r.number, r]));
  const seen = new Set<number>();
  for (const [i, place] of value.entries()) {
    if (!Array.isArray(place) || place.length === 0) return `placings[${i}] must be a non-empty list of runner numbers`;
    if (place.length > MAX_DEAD_HEAT) return `placings[${i}] lists ${place.length} runners: a place is shared by at most ${MAX_DEAD_HEAT}`;
    for (const runner of place) {
      if (!Number.isInteger(runner)) return `placings[${i}] holds ${JSON.stringify(runner)}, not a runner number`;
      const known_ = known.get(runner as number);
      if (!known_) return `placings[${i}]: runner ${runner} is not in the race`;
      if (known_.scratched) return `placings[${i}]: runner ${runner} is scratched and cannot be placed`;
      if (seen.has(runner as number)) return `placings[${i}]: runner ${runner} is placed twice`;
      seen.add(runner as number);
    }
  }
  return value as number[][];
}

/** Finishing positions each single-race exotic's winning combinations need. */
const POSITIONS_NEEDED: Partial<Record<string, number>> = { exacta: 2, quinella: 2, trifecta: 3, firstfour: 4 };

/** What a final result must fill: the race's products and places paid, its starters, the dividends declared. */
export interface FillRule {
  products: readonly string[];
  placesPaid: number;
  starters: number;
  /** Fewer runners finished than the race's products need: the placings list every one that did. */
  shortField: boolean;
}

/**
 * Why a final result leaves positions unfilled that settlement needs, or undefined: a bet on a
 * position nobody filled is settled as a loser. A declared dividend's positions are needed always;
 * the places paid (when place is offered) and each offered exotic's positions, up to the starters,
 * unless `shortField` says that fewer runners finished.
 */
export function unfilledPositions(placings: number[][], dividends: Dividends, rule: FillRule): string | undefined {
  const filled = placings.reduce((n, place) => n + place.length, 0);
  for (const product of Object.keys(dividends)) {
    const needed = POSITIONS_NEEDED[product];
    if (needed && filled < needed) return `dividends.${product} needs ${needed} placed runners; the placings fill ${filled}`;
  }
  if (rule.shortField) return undefined;
  const needs: Array<[string, number]> = rule.products.flatMap((p): Array<[string, number]> => {
    if (p === 'place') return [[`the ${rule.placesPaid} places paid need`, rule.placesPaid]];
    const needed = POSITIONS_NEEDED[p];
    return needed ? [[`${p} needs`, needed]] : [];
  });
  const [what, needed] = needs.reduce((most, need) => (need[1] > most[1] ? need : most), ['', 0] as [string, number]);
  if (filled < Math.min(needed, rule.starters)) {
    return `${what} ${Math.min(needed, rule.starters)} placed runners (${rule.starters} starters); the placings fill ${filled}: `
      + 'list every placed runner, or say short_field when fewer runners finished';
  }
  return undefined;
}

function dividendText(value: unknown, where: string): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) throw new Error(`${where} must be a dividend per $1 unit, a number of at least 1`);
  const { text, sentPlaces } = numberToDecimal(value, 2);
  if (sentPlaces > 2 || value >= 10_000_000) throw new Error(`${where} must have at most two decimals and stay below 10,000,000`);
  return text;
}

function entries(product: string, value: unknown): DividendEntry[] {
  if (!Array.isArray(value)) return [{ dividend: dividendText(value, `dividends.${product}`) }];
  if (value.length === 0) throw new Error(`dividends.${product} must not be an empty list`);
  return value.map((entry, i) => {
    const where = `dividends.${product}[${i}]`;
    // Only these two keys: a mistyped third ("runner", "divident") would be dropped without a word.
    const shape = isObject(entry) && Object.keys(entry).every((k) => k === 'runners' || k === 'dividend');
    if (!shape || !Array.isArray(entry.runners) || entry.runners.length === 0 || !entry.runners.every((r) => Number.isInteger(r) && r >= 1 && r <= 99)) {
      throw new Error(`${where} must be {"runners": [runner numbers in finishing order], "dividend": number}`);
    }
    return { runners: entry.runners as number[], dividend: dividendText(entry.dividend, `${where}.dividend`) };
  });
}

/** `{"exacta": 30.0, "trifecta": [{"runners": [4,7,2], "dividend": 120.5}, …]}` → Dividends, or why not. */
export function parseDividends(value: unknown): Dividends | string {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) return 'dividends must be an object of tote products, e.g. {"exacta": 30.0}';
  const out: Dividends = {};
  try {
    for (const [product, given] of Object.entries(value)) {
      if (!(TOTE_PRODUCTS as readonly string[]).includes(product)) return `dividends.${product}: not a tote product (one of ${TOTE_PRODUCTS.join(', ')})`;
      out[product as ToteProduct] = entries(product, given);
    }
  } catch (error) {
    return (error as Error).message;
  }
  return out;
}

/** What a race is resulted for: the products it offers. */
export interface DividendRule {
  products: readonly string[];
}

/** Legs of each multi-race pool: a pool's combination names one winner per leg. */
const POOL_LEGS: Partial<Record<string, number>> = { quaddie: 4, dailydouble: 2 };

/**
 * Why declared dividends do not fit the race and its placings, or undefined. A dividend for a
 * single-race product the race does not offer would be settled by no bet, and an entry whose
 * runners are not a winning combination of these placings is one that settlement never finds: in
 * both the operator meant something else, and the winning bets would wait on a dividend the result
 * seems to give. Refused, naming the entry. A quaddie or daily double entry names one runner per
 * leg, the last a winner of this race; which race may take it at all is misplacedPoolDividends'.
 */
export function misfitDividends(dividends: Dividends, placings: number[][], rule: DividendRule): string | undefined {
  for (const [product, list] of Object.entries(dividends) as Array<[ToteProduct, DividendEntry[]]>) {
    const legs = POOL_LEGS[product];
    if (legs === undefined && !rule.products.includes(product)) return `dividends.${product}: the race does not offer ${product}`;
    const ordered = product !== 'quinella';
    const key = (runners: number[]) => (ordered ? runners : [...runners].sort((a, b) => a - b)).join('-');
    const winning = legs === undefined ? new Set(winningOrders(placings, POSITIONS_NEEDED[product]!).map(key)) : undefined;
    const seen = new Set<string>();
    for (const [i, entry] of list.entries()) {
      if (!entry.runners) continue;
      const where = `dividends.${product}[${i}].runners`;
      if (legs !== undefined) {
        if (entry.runners.length !== legs || !winners(placings).includes(entry.runners.at(-1)!)) {
          return `${where} must name ${legs} runners, one winner per leg, the last a winner of this race`;
        }
      } else if (!winning!.has(key(entry.runners))) {
        return `${where} ${entry.runners.join('-')} is not a winning combination of these placings`;
      }
      if (seen.has(key(entry.runners))) return `${where} ${entry.runners.join('-')} is given twice`;
      seen.add(key(entry.runners));
    }
  }
  return undefined;
}

/** A multi-race pool: its product (quaddie, dailydouble) and its races in leg order. */
export interface PoolRaces {
  product: string;
  races: readonly number[];
}

/**
 * Why a quaddie or daily double dividend is declared on race `raceNumber` of meeting `meetingId`
 * when no pool of its product ends there, or undefined. Settlement reads a pool's dividends on its
 * last race only, so one declared on another leg would be ignored while the pool's winning bets
 * wait for it. `pools`: the meeting's pools, and those of bets still to settle ending on this race
 * (a pool an import replaced keeps its bets, and they their last race).
 */
export function misplacedPoolDividends(dividends: Dividends, meetingId: number | string, raceNumber: number, pools: readonly PoolRaces[]): string | undefined {
  for (const product of Object.keys(dividends).filter((p) => POOL_LEGS[p] !== undefined)) {
    const ofProduct = pools.filter((p) => p.product === product);
    if (ofProduct.some((p) => p.races.at(-1) === raceNumber)) continue;
    if (!ofProduct.length) return `dividends.${product}: meeting ${meetingId} has no ${product}, so none of its races takes a ${product} dividend`;
    const shown = [...new Set(ofProduct.map((p) => p.races.join(', ')))].map((races) => `the ${product} of races ${races} ends on race ${races.split(', ').at(-1)}`);
    return `dividends.${product}: race ${raceNumber} is not the last race of a ${product} of the meeting: ${shown.join(', ')}; `
      + (shown.length > 1 ? 'declare each one\'s dividends on its last race' : 'declare its dividends there');
  }
  return undefined;
}

/** Places paid by the number of starters: the first term whose minimum the field reaches. */
export interface PlaceTerm {
  minStarters: number;
  places: number;
}
/** 8 or more starters: 3 places; 5–7: 2; fewer than 5: no place betting. */
export const DEFAULT_PLACE_TERMS: PlaceTerm[] = [{ minStarters: 8, places: 3 }, { minStarters: 5, places: 2 }];

/** Place terms as stored (place_terms.terms) and given to `place-terms set`. */
export interface StoredPlaceTerm {
  min_starters: number;
  places: number;
}

/** Most starters a term can name (runner numbers run to 99). */
const MAX_STARTERS = 99;

/**
 * `[{"min_starters": 8, "places": 3}, {"min_starters": 5, "places": 2}]` → the terms, largest field
 * first, or why not: integers, places from 1 to min_starters, each min_starters once.
 */
export function parsePlaceTerms(value: unknown): StoredPlaceTerm[] | string {
  const shape = 'terms must be a non-empty list of {"min_starters": integer, "places": integer}, e.g. [{"min_starters": 8, "places": 3}]';
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_STARTERS) return shape;
  const seen = new Set<number>();
  for (const [i, term] of value.entries()) {
    if (!isObject(term) || Object.keys(term).some((k) => k !== 'min_starters' && k !== 'places')) return `terms[${i}]: ${shape}`;
    const { min_starters: min, places } = term;
    if (!Number.isInteger(min) || (min as number) < 1 || (min as number) > MAX_STARTERS) return `terms[${i}].min_starters must be an integer from 1 to ${MAX_STARTERS}`;
    if (!Number.isInteger(places) || (places as number) < 1 || (places as number) > (min as number)) return `terms[${i}].places must be an integer from 1 to its min_starters (${min as number})`;
    if (seen.has(min as number)) return `terms[${i}]: min_starters ${min as number} is given twice`;
    seen.add(min as number);
  }
  return (value as StoredPlaceTerm[]).map((t) => ({ min_starters: t.min_starters, places: t.places })).sort((a, b) => b.min_starters - a.min_starters);
}

export function placesPaid(starters: number, terms: PlaceTerm[] = DEFAULT_PLACE_TERMS): number {
  return [...terms].sort((a, b) => b.minStarters - a.minStarters).find((t) => starters >= t.minStarters)?.places ?? 0;
}

/** Each placed runner's finishing positions: a dead heat of n at place p covers p … p+n−1. */
export function positions(placings: number[][]): Map<number, { from: number; to: number }> {
  const out = new Map<number, { from: number; to: number }>();
  let next = 1;
  for (const place of placings) {
    for (const runner of place) out.set(runner, { from: next, to: next + place.length - 1 });
    next += place.length;
  }
  return out;
}

/**
 * The part of a stake on `runner` that counts as finishing within `paid` places, as [shares, of]:
 * 1 of 1 for a clear finish inside, 1 of 2 for a dead heat of two for the last place paid, 0 outside.
 */
export function shareWithin(runner: number, placings: number[][], paid: number): [number, number] {
  const at = positions(placings).get(runner);
  if (!at) return [0, 1];
  return [Math.max(0, Math.min(paid, at.to) - at.from + 1), at.to - at.from + 1];
}

/** Every ordered way the first `k` positions were filled (several with a dead heat); [] when the
 * placings do not reach k positions. */
export function winningOrders(placings: number[][], k: number): number[][] {
  const at = positions(placings);
  const candidates = (p: number) => [...at].filter(([, r]) => r.from <= p && p <= r.to).map(([runner]) => runner);
  const out: number[][] = [];
  const walk = (p: number, chosen: number[]) => {
    if (p > k) return void out.push(chosen);
    for (const runner of candidates(p)) if (!chosen.includes(runner)) walk(p + 1, [...chosen, runner]);
  };
  walk(1, []);
  return out;
}

/** The winners of a race: every runner sharing first place. */
export function winners(placings: number[][]): number[] {
  return placings[0] ?? [];
}

/** The key of a race in maps of race facts: "meetingId:raceNumber". */
export const raceKey = (meetingId: number | string, raceNumber: number): string => `${meetingId}:${raceNumber}`;
