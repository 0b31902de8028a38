// One bet's settlement, planned from its stored rows and the facts of its races: the verdict of
// racing/settle.ts, the wallet calls still owed (racing/bet-ledger.ts) and the bet's new row. No
// I/O: the batch that locked the bet writes the plan in the same transaction.
import { apply, movesToCancel, movesToRefund, movesToSettle, type Ledger, type Move } from '../../racing/bet-ledger.ts';
import { canMove, type BetStatus } from '../../racing/bet-lifecycle.ts';
import type { BetKind } from '../../racing/bet-kinds.ts';
import { centsToDollars, parseDecimal } from '../../racing/money.ts';
import { MissingDividendError, settle, type RaceFacts, type SettleBet, type Verdict } from '../../racing/settle.ts';
import { settlementCause } from '../../racing/settle-cause.ts';
import { raceKey } from '../../racing/results.ts';
import { MAX_PAYOUT_CENTS } from '../../racing/stakes.ts';
import { struckAt, type BetRow, type LegRow } from './betting.queries.ts';
import type { BetChange } from './settlement.queries.ts';

const centsOf = (text: string | null): bigint => (text === null ? 0n : parseDecimal(text, 2)!);

export function ledgerOf(bet: BetRow): Ledger {
  return { payoutCents: centsOf(bet.payout), refundedCents: centsOf(bet.refunded), partialRefundCents: centsOf(bet.partial_refund), settled: bet.settled_at !== null };
}

export interface Plan {
  change?: BetChange;
  moves: Move[];
  /** Why the bet could not be settled now (a dividend missing from the result). */
  problem?: string;
}

/** The row of `bet` after `moves`, moved to `to`. */
export function changeOf(bet: BetRow, to: BetStatus, moves: Move[], now: Date, cause: string, detail: Record<string, unknown>, extra: Partial<BetChange> = {}): BetChange {
  const ledger = apply(ledgerOf(bet), moves);
  const settledNow = !ledgerOf(bet).settled && ledger.settled;
  return {
    tenantId: bet.tenant_id, betId: bet.bet_id, from: bet.status, to, result: bet.result,
    payout: centsToDollars(ledger.payoutCents), refunded: centsToDollars(ledger.refundedCents), partialRefund: centsToDollars(ledger.partialRefundCents),
    cashOut: bet.cash_out, adjusted: bet.adjusted, settledAt: settledNow ? now : bet.settled_at, cancelReason: bet.cancel_reason,
    cause, detail: { ...detail, calls: moves.map((m) => ({ op: m.op, amount: centsToDollars(m.amountCents), ...('transactionType' in m && { transactionType: m.transactionType }) })) },
    ...extra,
  };
}

/** The bet as the settlement rules read it, with the facts of its races (racing/settle.ts). */
export function settleBetOf(bet: BetRow, legs: LegRow[], facts: Map<string, RaceFacts>): SettleBet {
  return {
    kind: bet.kind as BetKind, boxed: bet.boxed, bonus: bet.bonus, acceptedCents: centsOf(bet.accepted_stake), combinations: bet.combinations,
    percentage: bet.percentage,
    legs: legs.map((l) => {
      const race = facts.get(raceKey(l.meeting_id, l.race_number));
      if (!race) throw new Error(`no facts for race ${l.race_number} of meeting ${l.meeting_id}`);
      return { selections: l.selections, price: l.price, struckAt: struckAt(bet, l), race };
    }),
  };
}

/**
 * What settling `bet` now changes; nothing for a bet in a final state or already owed nothing more.
 * Its history names what decided the verdict (racing/settle-cause.ts), not the race change whose
 * settlement happens to run: that one may have been queued before the facts it now reads.
 */
export function planSettlement(bet: BetRow, legs: LegRow[], facts: Map<string, RaceFacts>, now: Date): Plan {
  if (bet.status !== 'accepted' && bet.status !== 'partially_accepted' && bet.status !== 'settled') return { moves: [] };
  let verdict: Verdict;
  const settling = settleBetOf(bet, legs, facts);
  try {
    verdict = settle(settling);
  } catch (error) {
    if (error instanceof MissingDividendError) return { moves: [], problem: error.message };
    throw error;
  }
  if (verdict.state === 'open') return { moves: [] };
  // A fixed-odds bet's return is bounded at placement, so this is a tote bet (or an older one): dividends
  // entered wrong, most likely. Left unsettled with a problem, the rest of its batch settles.
  if (verdict.state === 'settled' && verdict.payoutCents + verdict.partialRefundCents >= MAX_PAYOUT_CENTS) {
    return { moves: [], problem: `the bet would return ${centsToDollars(verdict.payoutCents + verdict.partialRefundCents)}, `
      + '$1,000,000,000,000 or more, beyond what can be stored or paid: check the dividends' };
  }
  const ledger = ledgerOf(bet);
  const cause = settlementCause(settling, verdict);
  if (verdict.state === 'refund') {
    if (!canMove(bet.status, 'refunded')) return { moves: [] };
    const moves = movesToRefund(ledger, centsOf(bet.accepted_stake));
    return { moves, change: changeOf(bet, 'refunded', moves, now, cause, { verdict: verdict.reason }, { result: null }) };
  }
  const moves = movesToSettle(ledger, verdict);
  const result = verdict.won ? 'won' : 'lost';
  if (moves.length === 0 && bet.status === 'settled' && bet.result === result) return { moves };
  const detail = { verdict: verdict.reason, payout: centsToDollars(verdict.payoutCents), partial_refund: centsToDollars(verdict.partialRefundCents) };
  return { moves, change: changeOf(bet, 'settled', moves, now, cause, detail, { result }) };
}

/** Cancelling `bet`: the winnings paid reversed, then the stake not yet returned. */
export function planCancel(bet: BetRow, now: Date, reason: string | null, by: string): Plan {
  const moves = movesToCancel(ledgerOf(bet), centsOf(bet.accepted_stake));
  return { moves, change: changeOf(bet, 'cancelled', moves, now, 'cancelled', { reason, by }, { cancelReason: reason }) };
}
