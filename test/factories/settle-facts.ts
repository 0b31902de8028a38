// Facts of races and bets for the settlement tests (src/racing/settle*.test.ts): a final race with
// runners 1-2-3-4 placed and three places paid unless told otherwise, and bets built from a line of
// plain values. Times are fixed: a bet is placed at PLACED, a late scratching comes AFTER it.
import type { BetKind } from '../../src/racing/bet-kinds.ts';
import type { RaceStatus } from '../../src/racing/race-status.ts';
import type { Dividends } from '../../src/racing/results.ts';
import type { RaceFacts, Scratching, SettleBet, Verdict } from '../../src/racing/settle.ts';

export const BEFORE = new Date('2024-05-01T02:00:00Z');
export const PLACED = new Date('2024-05-01T03:00:00Z');
export const AFTER = new Date('2024-05-01T03:30:00Z');
/** When a final race was resulted, or an abandoned one abandoned, unless told otherwise: after the bet and AFTER. */
export const RESULTED = new Date('2024-05-01T05:00:00Z');

/** A scratching at `at` with the deductions in percent (decimal text), none by default. */
export function scratching(at: Date, winDeduction: string | null = null, placeDeduction: string | null = null): Scratching {
  return { at, winDeduction, placeDeduction };
}

export interface RaceInput {
  status?: RaceStatus;
  placings?: number[][] | null;
  dividends?: Dividends;
  placesPaid?: number;
  scratched?: Record<number, Scratching>;
  resultedAt?: Date;
  amended?: boolean;
  abandonedAt?: Date;
}

export function race(input: RaceInput = {}): RaceFacts {
  const status = input.status ?? 'final';
  return {
    status,
    placings: input.placings !== undefined ? input.placings : status === 'final' ? [[1], [2], [3], [4]] : null,
    dividends: input.dividends ?? {},
    placesPaid: input.placesPaid ?? 3,
    scratched: new Map(Object.entries(input.scratched ?? {}).map(([runner, s]) => [Number(runner), s])),
    resultedAt: status === 'final' ? input.resultedAt ?? RESULTED : null,
    amended: status === 'final' && input.amended === true,
    abandonedAt: status === 'abandoned' ? input.abandonedAt ?? RESULTED : null,
  };
}

export interface BetOptions {
  bonus?: boolean;
  /** When every leg's price was struck (default PLACED). */
  struckAt?: Date;
}

/** A fixed-odds WIN or PLACE bet of `stakeCents` on `runner` at `price`. */
export function single(kind: 'WIN' | 'PLACE', stakeCents: bigint, runner: number, price: string, facts: RaceFacts, options: BetOptions = {}): SettleBet {
  return {
    kind, boxed: false, bonus: options.bonus ?? false, acceptedCents: stakeCents, combinations: 1, percentage: null,
    legs: [{ selections: [[runner]], price, struckAt: options.struckAt ?? PLACED, race: facts }],
  };
}

/** A multi: one [runner, price, race] per leg. */
export function multi(stakeCents: bigint, legs: Array<[number, string, RaceFacts]>, options: BetOptions = {}): SettleBet {
  return {
    kind: 'MULTI', boxed: false, bonus: options.bonus ?? false, acceptedCents: stakeCents, combinations: 1, percentage: null,
    legs: legs.map(([runner, price, facts]) => ({ selections: [[runner]], price, struckAt: options.struckAt ?? PLACED, race: facts })),
  };
}

export interface ToteInput extends BetOptions {
  kind: BetKind;
  stakeCents: bigint;
  /** Combinations covered when the bet was taken, and the percentage of a $1 unit (4 places). */
  combinations: number;
  percentage: string;
  /** Selections per leg (one leg for an exotic, one list per position or one boxed list). */
  selections: number[][][];
  races: RaceFacts[];
  boxed?: boolean;
}

export function tote(input: ToteInput): SettleBet {
  return {
    kind: input.kind, boxed: input.boxed ?? false, bonus: input.bonus ?? false, acceptedCents: input.stakeCents,
    combinations: input.combinations, percentage: input.percentage,
    legs: input.selections.map((selections, i) => ({ selections, price: null, struckAt: input.struckAt ?? PLACED, race: input.races[i]! })),
  };
}

/** The expected verdicts, written short in the tables. */
export const won = (payoutCents: bigint, partialRefundCents = 0n) => ({ state: 'settled', won: true, payoutCents, partialRefundCents }) as const;
export const lost = (partialRefundCents = 0n) => ({ state: 'settled', won: false, payoutCents: 0n, partialRefundCents }) as const;
export const refund = (reason: string) => ({ state: 'refund', reason }) as const;
export const open = { state: 'open' } as const;
export type Expected = ReturnType<typeof won> | ReturnType<typeof lost> | ReturnType<typeof refund> | typeof open;

/** The parts of a verdict the tables state: money and state, and the reason of a refund. */
export function outcome(verdict: Verdict): Expected {
  if (verdict.state === 'settled') return { state: 'settled', won: verdict.won, payoutCents: verdict.payoutCents, partialRefundCents: verdict.partialRefundCents } as Expected;
  if (verdict.state === 'refund') return { state: 'refund', reason: verdict.reason };
  return open;
}
