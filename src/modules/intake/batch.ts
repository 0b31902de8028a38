// The shapes of an upload batch as validated: the context it is checked in, the problems found,
// the warnings given, and the valid bets as one array per column (for the set-based insert).
import { echo } from '../../errors.ts';

/**
 * A client's object key as one segment of a `field` path: quoted as messages quote a value (echo:
 * at most 40 characters, then "…"; control characters escaped), without the quotes, and with "~" and
 * "/" escaped as in a JSON pointer. A 100,000-character key never makes a 100,000-character answer.
 */
export function keySegment(key: string): string {
  return echo(key).slice(1, -1).replaceAll('~', '~0').replaceAll('/', '~1');
}

export interface BetError {
  /** Index of the bet in `bets`, or null for a top-level field. */
  index: number | null;
  /** The bet's id as sent, when it has one. */
  id: string | number | null;
  /** JSON-pointer-like path, e.g. bets/3/exotics_selection. */
  field: string;
  message: string;
}

export interface UploadWarning {
  code: 'unknown_field' | 'precision' | 'net_result_mismatch' | 'late_upload' | 'unlisted_race' | 'no_jurisdiction';
  message: string;
  /** How many bets it concerns (1 for batch-level warnings). */
  count: number;
  /** The first place it occurs. */
  field: string;
}

export interface ValidationContext {
  version: 1 | 2;
  /** The client's agency codes, upper case. */
  agencies: readonly string[];
  /** Default currency (the tenant's). */
  currency: string;
  userStates: ReadonlySet<string>;
  /** Receipt time: a bet placed later than this (plus clock skew) is refused. */
  now: Date;
  /** The tenant's IANA time zone, where a bet's local date is its racing day. */
  timezone: string;
}

/** The bets of a valid batch, one array per column, in the order of `bets`. */
export interface BetColumns {
  source: string[]; bet_id: string[]; leg: number[]; bet_time: string[]; bet_type: string[];
  runner_number: (number | null)[]; exotics_selection: (string | null)[]; user_id: string[];
  user_name: (string | null)[]; user_state: (string | null)[]; terminal_id: (string | null)[];
  info_type: (string | null)[]; medium: (string | null)[]; resulted: (boolean | null)[]; status: string[];
  bonus: boolean[]; back_indicator: boolean[]; bet_back_id: (string | null)[]; bet_back_agency: (string | null)[];
  bet_back_amount: (string | null)[]; bet_back_revenue: (string | null)[]; bet_back_date: (string | null)[];
  amount: string[]; price: (string | null)[]; payout: (string | null)[]; net_result: (string | null)[];
  currency: string[];
  /** Epoch ms of bet_time (for the racing day of bets on unknown meetings). */
  bet_time_ms: number[];
}

export type ValidationResult =
  | { ok: true; meetingId: number; raceNumber: number; bets: BetColumns; warnings: UploadWarning[] }
  | { ok: false; errors: BetError[] };
