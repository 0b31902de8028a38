// A bet as its user sees it (the GraphQL Bet type), and the betMetadata of its confirm (spec 2.5),
// both built from the stored rows. Money and prices are exact decimals in the database; on the
// wire they are JSON numbers whose shortest form is that decimal (12.5 is $12.50).
import { createHash } from 'node:crypto';
import type { BetMetadata } from '../../wallet-protocol/bet-metadata.ts';
import { KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { centsToDollars, parseDollars } from '../../racing/money.ts';
import type { BetRow, LegRow } from './betting.queries.ts';

export type BetStatusName = 'PENDING' | 'ACCEPTED' | 'PARTIALLY_ACCEPTED' | 'REJECTED' | 'SETTLED' | 'REFUNDED' | 'CANCELLED' | 'CASHED_OUT';

export interface BetView {
  id: string;
  ticketId: string;
  type: BetKind;
  status: BetStatusName;
  stake: number;
  acceptedStake: number | null;
  percentage: number | null;
  originalPercentage: number | null;
  combinations: number;
  odds: number | null;
  originalOdds: number | null;
  boxed: boolean;
  bonus: boolean;
  reason: string | null;
  reasonCode: string | null;
  createdAt: string;
  /** Settled bets: WON or LOST. */
  result: 'WON' | 'LOST' | null;
  /** Net winnings paid (settleBet less reversals), stake returned (refundBet and partial refunds), cash out. */
  payout: number;
  refunded: number;
  cashOut: number | null;
  settledAt: string | null;
  legs: Array<{ meetingId: number; raceNumber: number; eventId: string; eventName: string; selections: number[][]; price: number | null; seenPrice: number | null }>;
}

/** Our statusId of betMetadata (docs/betting.md). */
export const STATUS_IDS: Record<BetRow['status'], number> = {
  pending: 1, accepted: 2, partially_accepted: 3, rejected: 4, settled: 5, refunded: 6, cancelled: 7, cashed_out: 8,
};
/** Our lineTypeId of betMetadata selections: 1 win line, 2 place line, 3 tote. */
const LINE_TYPE: Partial<Record<BetKind, number>> = { WIN: 1, PLACE: 2, MULTI: 1 };

const num = (text: string | null): number | null => (text === null ? null : Number(text));

export function betView(bet: BetRow, legs: LegRow[]): BetView {
  return {
    id: bet.bet_id,
    ticketId: bet.ticket_id,
    type: bet.kind as BetKind,
    status: bet.status.toUpperCase() as BetStatusName,
    stake: Number(bet.stake),
    acceptedStake: num(bet.accepted_stake),
    percentage: num(bet.percentage),
    originalPercentage: num(bet.original_percentage),
    combinations: bet.combinations,
    odds: num(bet.fixed_odds),
    originalOdds: num(bet.original_odds),
    boxed: bet.boxed,
    bonus: bet.bonus,
    reason: bet.reason,
    reasonCode: bet.reason_code,
    createdAt: bet.created_at.toISOString(),
    result: bet.result ? (bet.result.toUpperCase() as 'WON' | 'LOST') : null,
    payout: Number(bet.payout),
    // Added in cents: two refunds summed as binary floats can show 0.30000000000000004.
    refunded: Number(centsToDollars(parseDollars(bet.refunded)! + parseDollars(bet.partial_refund)!)),
    cashOut: num(bet.cash_out),
    settledAt: bet.settled_at?.toISOString() ?? null,
    legs: legs.map((l) => ({
      meetingId: Number(l.meeting_id), raceNumber: l.race_number, eventId: l.event_id, eventName: l.event_name,
      selections: l.selections, price: num(l.price), seenPrice: num(l.seen_price),
    })),
  };
}

/**
 * The id of a runner in betMetadata selections (spec 2.5 wants UUIDs): a name-based UUID (version 5
 * layout, SHA-1) of the race's event id and the runner number, so it is stable and needs no table.
 */
export function runnerSelectionId(eventId: string, runner: number): string {
  const hash = createHash('sha1').update(`${eventId.toLowerCase()}:runner:${runner}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** betMetadata of the confirm of a bet taken with `status` and `accepted` (dollars). */
export function betMetadata(bet: Pick<BetRow, 'bet_id' | 'ticket_id' | 'tenant_id' | 'user_id' | 'kind' | 'created_at'>, legs: LegRow[], taken: { status: BetRow['status']; accepted: string; percentage: string | null; odds: string | null }): BetMetadata {
  const kind = bet.kind as BetKind;
  const rule = KIND_RULES[kind];
  return {
    id: bet.bet_id,
    ticketId: bet.ticket_id,
    tenantId: bet.tenant_id,
    userId: bet.user_id,
    betTypeId: rule.betTypeId,
    statusId: STATUS_IDS[taken.status],
    createdAt: bet.created_at.toISOString(),
    amount: Number(taken.accepted),
    fixedOdds: taken.odds === null ? 0 : Number(taken.odds),
    percentage: taken.percentage === null ? 100 : Number(taken.percentage),
    legs: legs.map((l) => ({
      betTypeId: rule.betTypeId,
      eventId: l.event_id,
      productKeyword: rule.product,
      processedDividend: 0,
      legType: 'racing',
      marketId: null,
      selection: l.selections.flatMap((runners, position) => runners.map((runner) => ({
        statusId: STATUS_IDS[taken.status],
        fixedOdds: l.price === null ? 0 : Number(l.price),
        margin: 0,
        position: position + 1,
        selectionId: [runnerSelectionId(l.event_id, runner)],
        lineTypeId: LINE_TYPE[kind] ?? 3,
        line: 0,
      }))),
    })),
  };
}
