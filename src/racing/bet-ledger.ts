// What the wallet has been told about one bet, and the calls still owed to bring it to a new
// verdict. Settlement is a difference: the calls move the wallet from what it was sent to what the
// bet is owed now, so a repeated settlement sends nothing and an amended result sends only the
// change (winnings no longer due reversed with debit deductbetwin, newly due ones paid with
// settleBet). Nothing is ever paid twice, whatever the order or number of results. Pure.
import type { Verdict } from './settle.ts';

export interface Ledger {
  /** Net winnings credited: settleBet amounts less debits of winnings. */
  payoutCents: bigint;
  /** Stake returned with refundBet. */
  refundedCents: bigint;
  /** Stake returned with credit betpartialrefund (tote combinations scratched away). */
  partialRefundCents: bigint;
  /** Whether a settleBet has been sent (the first settlement sends one even for 0). */
  settled: boolean;
}

export const EMPTY_LEDGER: Ledger = { payoutCents: 0n, refundedCents: 0n, partialRefundCents: 0n, settled: false };

export type Move =
  | { op: 'settleBet'; amountCents: bigint }
  | { op: 'refundBet'; amountCents: bigint }
  | { op: 'debit'; amountCents: bigint; transactionType: 'deductbetwin' | 'betwincancelled' }
  | { op: 'credit'; amountCents: bigint; transactionType: 'betpartialrefund' | 'cashout' | 'adjustreversetransaction' };

/** The stake not yet returned, by either refund. */
function stakeLeft(ledger: Ledger, acceptedCents: bigint): bigint {
  return acceptedCents - ledger.refundedCents - ledger.partialRefundCents;
}

/** Calls that bring the wallet to a settled verdict: the partial refund first, then the payout's change. */
export function movesToSettle(ledger: Ledger, verdict: Extract<Verdict, { state: 'settled' }>): Move[] {
  // A refund is final (an abandoned race, a scratching): settling after it would pay the stake twice.
  if (ledger.refundedCents > 0n) throw new RangeError(`the stake was refunded (${ledger.refundedCents} cents): the bet is not settled again`);
  const moves: Move[] = [];
  const partial = verdict.partialRefundCents - ledger.partialRefundCents;
  // Scratchings are final before the result, so the refunded combinations never shrink.
  if (partial < 0n) throw new RangeError(`partial refund would shrink from ${ledger.partialRefundCents} to ${verdict.partialRefundCents} cents`);
  if (partial > 0n) moves.push({ op: 'credit', amountCents: partial, transactionType: 'betpartialrefund' });
  const change = verdict.payoutCents - ledger.payoutCents;
  if (change > 0n || (change === 0n && !ledger.settled)) moves.push({ op: 'settleBet', amountCents: change });
  if (change < 0n) moves.push({ op: 'debit', amountCents: -change, transactionType: 'deductbetwin' });
  return moves;
}

/** Winnings paid reversed with a debit of `reversal`, then the stake not yet returned with refundBet. */
function movesToReturnStake(ledger: Ledger, acceptedCents: bigint, reversal: 'deductbetwin' | 'betwincancelled'): Move[] {
  const moves: Move[] = [];
  if (ledger.payoutCents > 0n) moves.push({ op: 'debit', amountCents: ledger.payoutCents, transactionType: reversal });
  const left = stakeLeft(ledger, acceptedCents);
  if (left > 0n) moves.push({ op: 'refundBet', amountCents: left });
  return moves;
}

/** Calls that return the whole stake (a refund verdict): winnings paid are reversed first. */
export function movesToRefund(ledger: Ledger, acceptedCents: bigint): Move[] {
  return movesToReturnStake(ledger, acceptedCents, 'deductbetwin');
}

/** Calls that cancel the bet: winnings paid reversed (betwincancelled), then the stake not yet returned. */
export function movesToCancel(ledger: Ledger, acceptedCents: bigint): Move[] {
  return movesToReturnStake(ledger, acceptedCents, 'betwincancelled');
}

/** The ledger once `moves` are sent. Cash outs and adjustments are not part of it. */
export function apply(ledger: Ledger, moves: Move[]): Ledger {
  let next = { ...ledger };
  for (const move of moves) {
    if (move.op === 'settleBet') next = { ...next, payoutCents: next.payoutCents + move.amountCents, settled: true };
    else if (move.op === 'debit') next = { ...next, payoutCents: next.payoutCents - move.amountCents };
    else if (move.op === 'refundBet') next = { ...next, refundedCents: next.refundedCents + move.amountCents };
    else if (move.transactionType === 'betpartialrefund') next = { ...next, partialRefundCents: next.partialRefundCents + move.amountCents };
  }
  return next;
}
