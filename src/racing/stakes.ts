// Stakes, odds, percentages and limits, in exact integers: stakes and payouts in cents, odds as a
// decimal with its places (a multi's odds are the exact product of its legs' prices), percentages
// in units of 10^-4 %. Every division rounds down, so we never promise more than the stake buys.
import { CENT_PLACES, formatDecimal, fromNumber, parseDecimal } from './money.ts';

/** An exact decimal: `units` × 10^-places. */
export interface Decimal {
  units: bigint;
  places: number;
}

/** The places a tote percentage is kept with (docs/betting.md). */
export const PERCENTAGE_PLACES = 4;

/** A stake sent as a JSON number → cents; a problem when it is not positive with at most 2 decimals. */
export function parseStake(value: number): bigint | string {
  if (!Number.isFinite(value)) return 'stake must be a finite number';
  if (value <= 0) return 'stake must be more than 0';
  const exact = fromNumber(value, 6);
  if (exact.sentPlaces > CENT_PLACES) return 'stake must have at most 2 decimal places (whole cents)';
  const cents = exact.units / 10_000n;
  if (cents >= 10n ** 11n) return 'stake must be below 1,000,000,000.00';
  return cents;
}

/** Decimal text ("3.50") → Decimal; undefined when it is not plain decimal text. */
export function decimal(text: string): Decimal | undefined {
  const places = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
  const units = parseDecimal(text, places);
  return units === undefined ? undefined : { units, places };
}

export function formatOdds(odds: Decimal): string {
  return formatDecimal(odds.units, odds.places, 'trim');
}

/** The exact product of prices: a multi's odds. */
export function multiply(prices: Decimal[]): Decimal {
  return prices.reduce((acc, p) => ({ units: acc.units * p.units, places: acc.places + p.places }), { units: 1n, places: 0 });
}

/** Whether a ≥ b. */
export function atLeast(a: Decimal, b: Decimal): boolean {
  const places = Math.max(a.places, b.places);
  return a.units * 10n ** BigInt(places - a.places) >= b.units * 10n ** BigInt(places - b.places);
}

/**
 * What a winning bet pays per unit of stake: its odds (stake back with the winnings), or for a
 * bonus bet its odds less 1 (the winnings only: docs/settlement-tote.md, Bonus bets). The payout limits
 * and a runner's liability weigh a bet by this, so a bonus bet counts what it can really pay.
 */
export function payoutMultiple(odds: Decimal, bonus: boolean): Decimal {
  return bonus ? { units: odds.units - 10n ** BigInt(odds.places), places: odds.places } : odds;
}

/** stake × odds, rounded down to the cent. */
export function payoutCents(stakeCents: bigint, odds: Decimal): bigint {
  return (stakeCents * odds.units) / 10n ** BigInt(odds.places);
}

/** The largest stake whose payout at these odds stays within `payoutCents`. */
export function stakeForPayout(maxPayoutCents: bigint, odds: Decimal): bigint {
  return maxPayoutCents <= 0n ? 0n : (maxPayoutCents * 10n ** BigInt(odds.places)) / odds.units;
}

/** Tote percentage of a $1 unit: stake ÷ combinations × 100, in units of 10^-4 %, rounded down. */
export function percentageUnits(stakeCents: bigint, combinations: number): bigint {
  return (stakeCents * 10n ** BigInt(PERCENTAGE_PLACES)) / BigInt(combinations);
}

export interface Limits {
  maxStake: bigint | null;
  maxPayout: bigint | null;
  maxRunnerLiability: bigint | null;
}

export type LimitName = 'max_stake' | 'max_payout' | 'max_runner_liability';

export interface Acceptance {
  acceptedCents: bigint;
  /** The limit that cut the stake, when one did. */
  limit: LimitName | null;
}

/**
 * How much of a stake the tenant's limits accept. Fixed-odds bets (with `pays`, their
 * payoutMultiple) are also bound by the payout limit and, for single-runner bets, by what the
 * runner may still lose the book. A bet that pays nothing (a bonus bet at 1.00) meets neither.
 */
export function acceptStake(stakeCents: bigint, limits: Limits, pays: Decimal | null, runnerLiabilityCents: bigint | null): Acceptance {
  const odds = pays && pays.units > 0n ? pays : null;
  let accepted = stakeCents;
  let limit: LimitName | null = null;
  const cap = (amount: bigint, name: LimitName) => {
    const bounded = amount < 0n ? 0n : amount;
    if (bounded < accepted) {
      accepted = bounded;
      limit = name;
    }
  };
  if (limits.maxStake !== null) cap(limits.maxStake, 'max_stake');
  if (odds && limits.maxPayout !== null) cap(stakeForPayout(limits.maxPayout, odds), 'max_payout');
  if (odds && runnerLiabilityCents !== null && limits.maxRunnerLiability !== null) {
    cap(stakeForPayout(limits.maxRunnerLiability - runnerLiabilityCents, odds), 'max_runner_liability');
  }
  return { acceptedCents: accepted, limit };
}

/** Below what every store of a payout holds (the reporting store's NUMERIC(18,6)): $1,000,000,000,000. */
export const MAX_PAYOUT_CENTS = 10n ** 14n;
