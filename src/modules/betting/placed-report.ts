// A stored bet as the reporting store reports it (docs/reports.md, "Bets placed through
// wagerline"): pure, so the placement and the settlement of a bet report it the same way, each
// with its own status and payout. The rows follow the upload's rules for the bet's upload type
// (racing/selection.ts), so a placed bet reads like one an operator uploaded.
import { KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { selectionText, TYPE_RULES } from '../../racing/selection.ts';
import type { PlacedBetLeg, PlacedBetReport } from '../intake/placed-bets.ts';
import { centsToDollars, parseDecimal } from '../../racing/money.ts';
import type { BetRow, LegRow } from './betting.queries.ts';
import type { BetChange } from './settlement.queries.ts';

/** What the report reads of a bet: a BetRow, or the bet being taken with its accepted stake. */
export type ReportedBet = Pick<BetRow, 'tenant_id' | 'bet_id' | 'user_id' | 'kind' | 'created_at' | 'medium' | 'bonus' | 'boxed' | 'accepted_stake'>;

/** Unresulted and Pending bets await their races; every other status is a settled bet. */
const awaitsResult = (status: PlacedBetReport['status']) => status === 'Unresulted' || status === 'Pending';

/**
 * The report of a taken bet with the caller's status and payout. `resulted` defaults to false while
 * the bet awaits its races and true after: a settlement that comes without a result (a cash out
 * before the race, an abandoned race) passes false. One leg per stored leg: WIN, PLACE and every
 * MULTI leg name their runner and price; an exotic its selection (positions by "/", "(BOXED)" when
 * boxed); a QUADDIE or DAILY_DOUBLE repeats the whole selection, legs by "/", on each leg's row, as
 * an upload of one per race does (the upload accepts no single-leg selection for them).
 */
export function placedBetReport(
  bet: ReportedBet,
  legs: readonly LegRow[],
  status: PlacedBetReport['status'],
  payout: string | null,
  resulted: boolean = !awaitsResult(status),
): PlacedBetReport {
  if (bet.accepted_stake === null || Number(bet.accepted_stake) <= 0) {
    throw new Error(`bet ${bet.bet_id} was not taken (no accepted stake): it is not reported`);
  }
  const rule = TYPE_RULES[KIND_RULES[bet.kind as BetKind].uploadType];
  const ordered = [...legs].sort((a, b) => a.leg - b.leg);
  const whole = rule.legs ? selectionText(ordered.map((l) => l.selections[0]!), false) : null;
  return {
    tenantId: bet.tenant_id,
    betId: bet.bet_id,
    userId: bet.user_id,
    kind: bet.kind,
    placedAt: bet.created_at,
    medium: bet.medium,
    bonus: bet.bonus,
    status,
    resulted,
    amount: bet.accepted_stake,
    payout,
    legs: ordered.map((l): PlacedBetLeg => ({
      leg: l.leg,
      meetingId: l.meeting_id,
      raceNumber: l.race_number,
      runnerNumber: rule.takes === 'runner' ? l.selections[0]![0]! : null,
      exoticsSelection: rule.takes === 'runner' ? null : whole ?? selectionText(l.selections, bet.boxed),
      price: l.price,
    })),
  };
}

/** The reported status and payout of a bet after a settlement change (docs/reports.md). */
export function reportedOutcome(change: Pick<BetChange, 'to' | 'payout' | 'refunded' | 'partialRefund' | 'cashOut'>): { status: PlacedBetReport['status']; payout: string } | undefined {
  const cents = (text: string | null) => (text === null ? 0n : parseDecimal(text, 2)!);
  const returned = centsToDollars(cents(change.payout) + cents(change.refunded) + cents(change.partialRefund) + cents(change.cashOut));
  switch (change.to) {
    case 'settled': return { status: cents(change.partialRefund) > 0n ? 'PartialRefund' : 'Paid', payout: returned };
    case 'refunded': return { status: 'FullRefund', payout: returned };
    case 'cancelled': return { status: 'Cancelled', payout: returned };
    case 'cashed_out': return { status: 'Paid', payout: returned };
    default: return undefined;
  }
}
