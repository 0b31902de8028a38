// The facts settlement reads and the verdict it gives (racing/settle.ts, racing/settle-tote.ts).
import type { BetKind } from './bet-kinds.ts';
import type { RaceStatus } from './race-status.ts';
import type { Dividends } from './results.ts';

export interface Scratching {
  at: Date;
  /** Late-scratching deductions in percent ("15.00"), null when none was declared. */
  winDeduction: string | null;
  placeDeduction: string | null;
}

/** One race as settlement sees it. */
export interface RaceFacts {
  status: RaceStatus;
  /** The final result's placings; null until the race is final. */
  placings: number[][] | null;
  dividends: Dividends;
  /** Places paid for this field (racing/results.ts placesPaid). */
  placesPaid: number;
  scratched: ReadonlyMap<number, Scratching>;
  /** When the final result in force was recorded; null until the race is final. */
  resultedAt: Date | null;
  /** That result replaced an earlier final one (an amendment). */
  amended: boolean;
  /** When the race was abandoned; null unless it is. */
  abandonedAt: Date | null;
}

export interface SettleLeg {
  selections: number[][];
  /** Fixed odds: the price taken on this leg (decimal text). */
  price: string | null;
  /** When that price was agreed: a late scratching after it takes its deduction (racing/settle.ts deductionPercent). */
  struckAt: Date;
  race: RaceFacts;
}

export interface SettleBet {
  kind: BetKind;
  boxed: boolean;
  bonus: boolean;
  acceptedCents: bigint;
  combinations: number;
  /** Tote: the accepted percentage of a $1 unit (decimal text, 4 places). */
  percentage: string | null;
  legs: SettleLeg[];
}

export type Verdict =
  | { state: 'open' }
  | { state: 'refund'; reason: string }
  | { state: 'settled'; won: boolean; payoutCents: bigint; partialRefundCents: bigint; reason: string };

/** A final result left out a dividend that a winning bet needs: the result cannot settle it. */
export class MissingDividendError extends Error {
  constructor(readonly product: string, readonly runners: number[]) {
    super(`dividends.${product} is missing for the winning combination ${runners.join('-')}`);
  }
}
