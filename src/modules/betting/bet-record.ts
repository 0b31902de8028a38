// One bet as an operator sees it (`bet show`, GET /admin/tenants/{tenant_id}/bets/{bet_id}, the
// back-office): every column of its row that matters after placement — money as exact decimal
// text ("12.50") —, its legs, its wallet calls with their delivery status, and its history.
import { struckAt, type BetRow, type LegRow } from './betting.queries.ts';

/** A wallet call of a bet as the operator sees it (`wallet calls --bet` has every attempt). */
export interface BetCallView {
  seq: number;
  call_id: string;
  op: string;
  amount: string;
  transaction_type?: unknown;
  status: string;
  attempts: number;
  created_at: string;
  finished_at: string | null;
  last_error: string | null;
}

export interface HistoryEntry {
  at: string;
  from: string | null;
  to: string;
  cause: string;
  detail: unknown;
}

/** One bet as the operator sees it: the whole row, its legs, its wallet calls and its history. */
export interface BetRecord {
  tenant_id: string;
  bet_id: string;
  user_id: string;
  ticket_id: string;
  kind: string;
  status: string;
  result: 'won' | 'lost' | null;
  stake: string;
  accepted_stake: string | null;
  combinations: number;
  fixed_odds: string | null;
  percentage: string | null;
  boxed: boolean;
  bonus: boolean;
  reason_code: string | null;
  reason: string | null;
  payout: string;
  refunded: string;
  partial_refund: string;
  cash_out: string | null;
  adjusted: string;
  cancel_reason: string | null;
  created_at: string;
  settled_at: string | null;
  updated_at: string;
  legs: Array<{ leg: number; meeting_id: number; race_number: number; event_id: string; event_name: string; selections: number[][]; price: string | null; seen_price: string | null;
    struck_at: string }>;
  wallet_calls: BetCallView[];
  history: HistoryEntry[];
}

/** The fields of a wallet call `recordOf` reads (the wallet's callsOfBet gives more). */
type CallInput = Omit<BetCallView, 'transaction_type'> & { tenant_id: string; transaction_type?: unknown };

export function recordOf(bet: BetRow, legs: LegRow[], calls: CallInput[], history: HistoryEntry[]): BetRecord {
  return {
    tenant_id: bet.tenant_id, bet_id: bet.bet_id, user_id: bet.user_id, ticket_id: bet.ticket_id, kind: bet.kind, status: bet.status,
    result: bet.result, stake: bet.stake, accepted_stake: bet.accepted_stake, combinations: bet.combinations, fixed_odds: bet.fixed_odds,
    percentage: bet.percentage, boxed: bet.boxed, bonus: bet.bonus, reason_code: bet.reason_code, reason: bet.reason,
    payout: bet.payout, refunded: bet.refunded, partial_refund: bet.partial_refund, cash_out: bet.cash_out, adjusted: bet.adjusted,
    cancel_reason: bet.cancel_reason, created_at: bet.created_at.toISOString(), settled_at: bet.settled_at?.toISOString() ?? null,
    updated_at: bet.updated_at.toISOString(),
    legs: legs.map((l) => ({
      leg: l.leg, meeting_id: Number(l.meeting_id), race_number: l.race_number, event_id: l.event_id, event_name: l.event_name,
      selections: l.selections, price: l.price, seen_price: l.seen_price, struck_at: struckAt(bet, l).toISOString(),
    })),
    wallet_calls: calls.map((c) => ({
      seq: c.seq, call_id: c.call_id, op: c.op, amount: c.amount, ...(c.transaction_type !== undefined && { transaction_type: c.transaction_type }),
      status: c.status, attempts: c.attempts, created_at: c.created_at, finished_at: c.finished_at, last_error: c.last_error,
    })),
    history,
  };
}
