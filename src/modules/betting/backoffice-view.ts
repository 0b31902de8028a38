// The back-office record of a bet (docs/backoffice-schema.md): the bet, its metadata and its legs, built
// from the stored rows and the facts of its races. Plain data, JSON-ready: ids are UUID text, times
// ISO 8601 in UTC, money, odds, percentages and dividends exact decimal text ("12.50").
import { KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { legDividend } from '../../racing/leg-dividend.ts';
import { centsToDollars, parseDollars } from '../../racing/money.ts';
import type { RaceFacts } from '../../racing/settle-facts.ts';
import { decimal, payoutCents, payoutMultiple } from '../../racing/stakes.ts';
import type { BetStatusName } from './bet-view.ts';
import { INTERRUPTED, struckAt, type LegRow } from './betting.queries.ts';
import type { HistoryRow, PageRow } from './backoffice.queries.ts';

export type SportCode = 'T' | 'H' | 'G';
export const SPORT_NAMES: Record<SportCode, string> = { T: 'Thoroughbred racing', H: 'Harness racing', G: 'Greyhound racing' };

export interface BackofficeMetadata {
  created_at: string; tenant_id: string; user_id: string; account_id: string; account_type: 'cash' | 'bonus'; ticket_id: string;
  fixed_odds: string | null; original_odds: string | null; amount: string | null; original_amount: string;
  percentage: string | null; original_percentage: string | null; is_partial: boolean; status: BetStatusName;
  source: string; medium: string | null; bet_limit_id: string | null; reason: string | null; reason_id: string | null;
  message: string | null; action_id: string; liability_percentage: string; liability: string | null;
  is_fixed: boolean; is_flexi: boolean; is_boxed: boolean; bet_type: BetKind; teller_id: string | null;
  is_cashout: boolean; is_livebet: boolean; ip_address: string | null;
  /** Beyond the spec's record: what settlement decided and what the wallet was sent. */
  result: 'WON' | 'LOST' | null; payout: string; refunded: string; cash_out: string | null; adjusted: string; settled_at: string | null;
}

export interface BackofficeBet {
  id: string;
  created_at: string;
  metadata: BackofficeMetadata;
  /** The stored row the record was built from (legs and dividends are read from it). */
  row: PageRow;
  /** Read with the page when asked for (backoffice-reads.ts BetParts); otherwise read on demand. */
  legs?: BackofficeLeg[];
  wallet_calls?: WalletCallRecord[];
  history?: BackofficeHistoryEntry[];
}

export interface WalletCallRecord {
  sequence: number; operation: string; transaction_type: string | null; amount: string; transactionId: string; status: string;
  bonus: boolean; created_at: string; finished_at: string | null; next_attempt_at: string | null;
  last_http_status: number | null; last_error: string | null; note: string | null;
  attempts: Array<{ attempt: number; at: string; duration_ms: number; http_status: number | null; outcome: string; error: string | null }>;
}

export interface BackofficeLeg {
  leg_number: number; bet_type: BetKind; dividend: string | null; event_id: string; event_name: string; event_time: string;
  leg_type: 'racing'; meeting_id: string; meeting_name: string; postions_paid: number | null; product_keyword: string;
  sport_id: SportCode | null; sport_name: string | null; race_number: number; selections: number[][]; price: string | null;
}

export interface BackofficeHistoryEntry {
  seq: number; at: string; from: BetStatusName | null; to: BetStatusName; cause: string; detail: Record<string, unknown> | null;
}

const upper = (status: string) => status.toUpperCase() as BetStatusName;

/**
 * A bet pending for longer than any placement takes was interrupted: shown as the frontend shows it
 * (rejected, placement_interrupted) without writing — reads never change a bet.
 */
export function effectiveRow(row: PageRow, now: Date, interruptedAfterMs: number): PageRow {
  if (row.status !== 'pending' || now.getTime() - row.created_at.getTime() < interruptedAfterMs) return row;
  return { ...row, status: 'rejected', accepted_stake: '0.00', ...INTERRUPTED };
}

/** Bets the book may still have to pay on; a closed one's liability is nothing (what it paid is `payout`). */
const OPEN = new Set(['accepted', 'partially_accepted']);

function liability(row: PageRow, fixed: boolean): string | null {
  if (!fixed || (row.status !== 'pending' && !OPEN.has(row.status))) return '0.00';
  const accepted = row.accepted_stake === null ? undefined : parseDollars(row.accepted_stake);
  const odds = row.fixed_odds === null ? undefined : decimal(row.fixed_odds);
  if (accepted === undefined) return null;
  return centsToDollars(odds ? payoutCents(accepted, payoutMultiple(odds, row.bonus)) : 0n);
}

function metadataOf(row: PageRow): BackofficeMetadata {
  const kind = row.kind as BetKind;
  const fixed = KIND_RULES[kind].pricing === 'fixed';
  const accepted = row.accepted_stake === null ? undefined : parseDollars(row.accepted_stake);
  const cancelled = row.status === 'cancelled';
  return {
    created_at: row.created_at.toISOString(), tenant_id: row.tenant_id, user_id: row.user_id, account_id: row.user_id,
    account_type: row.bonus ? 'bonus' : 'cash', ticket_id: row.ticket_id, fixed_odds: row.fixed_odds, original_odds: row.original_odds,
    amount: row.accepted_stake, original_amount: row.stake, percentage: row.percentage, original_percentage: row.original_percentage,
    is_partial: accepted !== undefined && accepted > 0n && accepted < parseDollars(row.stake)!, status: upper(row.status),
    source: 'frontend', medium: row.medium, bet_limit_id: row.bet_limit,
    reason: cancelled ? row.cancel_reason : row.reason, reason_id: cancelled ? 'cancelled' : row.reason_code, message: row.reason,
    action_id: String(row.last_seq ?? 0), liability_percentage: fixed ? '100.00' : '0.00', liability: liability(row, fixed),
    is_fixed: fixed, is_flexi: !fixed && row.percentage !== null && Number(row.percentage) < 100, is_boxed: row.boxed, bet_type: kind,
    teller_id: null, is_cashout: row.status === 'cashed_out', is_livebet: row.live, ip_address: row.ip_address,
    result: row.result ? (row.result.toUpperCase() as 'WON' | 'LOST') : null, payout: row.payout,
    refunded: centsToDollars(parseDollars(row.refunded)! + parseDollars(row.partial_refund)!), cash_out: row.cash_out,
    adjusted: row.adjusted, settled_at: row.settled_at?.toISOString() ?? null,
  };
}

export function backofficeBet(row: PageRow): BackofficeBet {
  return { id: row.bet_id, created_at: row.created_at.toISOString(), metadata: metadataOf(row), row };
}

/** The legs of a bet, with each race's facts (by leg, same order) and meeting code. */
export function backofficeLegs(row: PageRow, legs: LegRow[], facts: Array<RaceFacts | undefined>, codes: Array<SportCode | undefined>): BackofficeLeg[] {
  const kind = row.kind as BetKind;
  const bet = { kind, boxed: row.boxed, legs: legs.map((l) => ({ selections: l.selections, price: l.price, struckAt: struckAt(row, l) })) };
  return legs.map((l, i) => ({
    leg_number: l.leg, bet_type: kind, dividend: legDividend(bet, i, facts), event_id: l.event_id, event_name: l.event_name,
    event_time: l.event_time.toISOString(), leg_type: 'racing', meeting_id: String(l.meeting_id), meeting_name: l.meeting_name,
    postions_paid: facts[i]?.placesPaid ?? null, product_keyword: KIND_RULES[kind].product,
    sport_id: codes[i] ?? null, sport_name: codes[i] ? SPORT_NAMES[codes[i]!] : null, race_number: l.race_number,
    selections: l.selections, price: l.price,
  }));
}

export function historyEntry(h: HistoryRow): BackofficeHistoryEntry {
  return { seq: h.seq, at: h.at.toISOString(), from: h.from_status === null ? null : upper(h.from_status), to: upper(h.to_status), cause: h.cause, detail: h.detail };
}
