// The wallet's rules (spec 2.4, 3), as a pure function from the current state of one user and one
// bet to either a refusal or an effect. Both stores load the state under their lock, call decide(),
// and apply the effect atomically together with the transaction record.
import { errorAnswer, type Answer } from './codes.ts';
import { centsToDollars } from '../../racing/money.ts';
import type { TxRequest } from './validate.ts';

export interface UserState {
  cash: number;
  bonus: number;
  reserved: number;
}

export type BetStatus = 'reserved' | 'confirmed' | 'released';

/**
 * What paid the bet's outcome: settleBet (an amended result may settle it again) or a cash-out
 * (final: wagerline sends nothing more on the bet's outcome after it, docs/bets-admin.md).
 */
export type ClosedBy = 'settleBet' | 'cashout';

export interface BetState {
  betId: string;
  userId: string;
  bonus: boolean;
  status: BetStatus;
  held: number;
  confirmed: number;
  refunded: number;
  settled: number;
  /** Winnings paid and not taken back: settleBet and cash-out amounts, less debits. */
  winnings: number;
  closedBy: ClosedBy | null;
}

/** Deltas in cents; `create` makes the bet row (reserve); `status` sets the bet's status. */
export interface Effect {
  cash: number;
  bonus: number;
  reserved: number;
  held: number;
  confirmed: number;
  refunded: number;
  settled: number;
  winnings: number;
  create?: { bonus: boolean };
  status?: BetStatus;
  closedBy?: ClosedBy;
}

export interface RuleFlags {
  /** break mode `bonus`: bonusFlag is ignored, cash moves. */
  ignoreBonus: boolean;
  /** break mode `partial`: confirm takes the whole reservation. */
  ignorePartial: boolean;
  /** break mode `settle-once`: settleBet only pays a winner, once (refuses 0 and a second one). */
  settleOnce?: boolean;
  /** break mode `bonus-winnings`: a reversal or cash-out of a bonus bet follows bonusFlag (bonus). */
  bonusWinnings?: boolean;
}

const NONE: Effect = { cash: 0, bonus: 0, reserved: 0, held: 0, confirmed: 0, refunded: 0, settled: 0, winnings: 0 };

function move(useBonus: boolean, cents: number, more: Partial<Effect> = {}): Effect {
  return { ...NONE, ...(useBonus ? { bonus: cents } : { cash: cents }), ...more };
}

/**
 * Calls that move a bet's winnings: settleBet pays them to cash (spec 2.4), so their reversal
 * (deductbetwin, betwincancelled) takes cash and a cash-out (which stands for them) pays cash,
 * even for a bonus bet. Taking a bonus bet's reversed winnings from its bonus balance would leave
 * the user the cash, and pay them twice in effect.
 */
const WINNINGS_TYPES = new Set(['deductbetwin', 'betwincancelled', 'cashout']);

export function decide(req: TxRequest, user: UserState, bet: BetState | undefined, flags: RuleFlags): Effect | Answer {
  const useBonus = req.bonusFlag && !flags.ignoreBonus && (flags.bonusWinnings || !WINNINGS_TYPES.has(req.transactionType ?? ''));
  const balance = useBonus ? user.bonus : user.cash;
  const which = useBonus ? 'bonus' : 'cash';
  // wagerline releases a bet of which nothing is accepted with refundBet, never a confirm of 0.00:
  // that would leave the bet taken with no stake in play, a caller's bug.
  if (req.op === 'confirm' && req.amount === 0) {
    return errorAnswer('VALIDATION_ERROR', `confirm amount must be above 0: a bet of which nothing is accepted is released with refundBet of its reservation`);
  }
  // Every credit wagerline sends pays something (a cash-out value, an adjustment, a refunded part
  // of the stake, each above 0): a credit of 0.00 moves nothing and can only be a caller's bug.
  if (req.op === 'credit' && req.amount === 0) {
    return errorAnswer('VALIDATION_ERROR', `credit amount must be above 0: a credit ${req.transactionType ?? ''} of 0.00 moves nothing`);
  }
  if (bet && bet.userId !== req.userId) return errorAnswer('USER_MISMATCH', `bet ${req.betId} belongs to another user`);
  if (req.op === 'reserve') {
    if (bet) return errorAnswer('DUPLICATE_BET', `bet ${req.betId} already has a reserve under another transactionId`);
    if (balance < req.amount) return errorAnswer('INSUFFICIENT_FUNDS', `${which} balance ${centsToDollars(balance)} is lower than ${centsToDollars(req.amount)}`);
    return move(useBonus, -req.amount, { reserved: req.amount, held: req.amount, create: { bonus: useBonus }, status: 'reserved' });
  }
  // A debit takes back winnings the bet was paid (spec 2.4: both codes reverse winnings of the
  // bet): a bet never reserved was paid none, and no more can come back than was paid and not
  // yet taken back — a larger debit would take the user's own money.
  if (req.op === 'debit') {
    if (!bet) return errorAnswer('UNKNOWN_BET', `bet ${req.betId} has no successful reserve: it has no winnings to take back`);
    // A cash-out is final: wagerline neither re-settles nor cancels a cashed-out bet, so nothing
    // of what it paid is ever taken back (and no stake refunded after that).
    if (bet.closedBy === 'cashout') return cashedOut(req, 'debited');
    if (req.amount > bet.winnings) {
      return errorAnswer('DEBIT_EXCEEDS_WINNINGS', `debit ${centsToDollars(req.amount)} is more than the ${centsToDollars(bet.winnings)} of winnings paid on bet ${req.betId} and not yet taken back`);
    }
    if (balance < req.amount) return errorAnswer('INSUFFICIENT_FUNDS', `${which} balance ${centsToDollars(balance)} is lower than ${centsToDollars(req.amount)}`);
    return move(useBonus, -req.amount, { winnings: -req.amount });
  }
  if (req.op === 'credit') return creditEffect(req, bet, useBonus, flags);
  // confirm, refundBet, settleBet: only after a successful reserve (spec 3).
  if (!bet) return errorAnswer('UNKNOWN_BET', `bet ${req.betId} has no successful reserve`);
  if (req.op === 'settleBet') {
    if (bet.status !== 'confirmed') return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId} is ${bet.status}, not confirmed: it cannot be settled`);
    if (bet.closedBy === 'cashout') return cashedOut(req, 'settled');
    // A bet whose whole stake came back (refunded: scratched, abandoned, cancelled) has nothing in
    // play: winnings paid on it would be money from nowhere. A client that settles it is wrong.
    if (bet.refunded >= bet.confirmed) return nothingInPlay(req, bet, 'settle');
    if (flags.settleOnce && (req.amount === 0 || bet.settled > 0)) return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId}: only one settleBet, of a winner`);
    // winnings always go to cash (spec 2.4)
    return { ...NONE, cash: req.amount, settled: req.amount, winnings: req.amount, closedBy: 'settleBet' };
  }
  if (!flags.ignoreBonus && req.bonusFlag !== bet.bonus) {
    return errorAnswer('BONUS_FLAG_MISMATCH', `bet ${req.betId} was reserved with bonusFlag ${bet.bonus}`);
  }
  if (req.op === 'confirm') {
    if (bet.status !== 'reserved') return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId} is ${bet.status}, not reserved: it cannot be confirmed`);
    if (req.amount > bet.held) {
      return errorAnswer('AMOUNT_EXCEEDS_RESERVED', `accepted amount ${centsToDollars(req.amount)} is more than the ${centsToDollars(bet.held)} reserved`);
    }
    const taken = flags.ignorePartial ? bet.held : req.amount;
    // The accepted amount leaves the wallet; the rest of the hold goes back to the balance. From
    // here `refunded` counts refunds of the confirmed amount: those of the hold are behind it.
    return move(bet.bonus, bet.held - taken, { reserved: -bet.held, held: -bet.held, confirmed: taken, refunded: -bet.refunded, status: 'confirmed' });
  }
  // refundBet: releases (part of) a held reservation, or returns confirmed funds.
  if (bet.status === 'confirmed') {
    // The cash-out paid the bet's outcome: its stake is not returned on top.
    if (bet.closedBy === 'cashout') return cashedOut(req, 'refunded');
    // A bet refunded no longer stands: winnings still paid on it would be paid on top of the stake.
    if (bet.winnings > 0) {
      return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId} has ${centsToDollars(bet.winnings)} of winnings paid and not taken back: a debit reverses them before its stake is refunded`);
    }
    const left = bet.confirmed - bet.refunded;
    if (req.amount > left) return errorAnswer('REFUND_EXCEEDS_BET', `refund ${centsToDollars(req.amount)} is more than the ${centsToDollars(left)} confirmed and not yet refunded`);
    return move(bet.bonus, req.amount, { refunded: req.amount });
  }
  if (req.amount > bet.held) return errorAnswer('REFUND_EXCEEDS_BET', `refund ${centsToDollars(req.amount)} is more than the ${centsToDollars(bet.held)} still held`);
  return move(bet.bonus, req.amount, {
    reserved: -req.amount, held: -req.amount, refunded: req.amount,
    ...(bet.held === req.amount ? { status: 'released' as const } : {}),
  });
}

/** A cash-out is final: anything more paid on the bet's outcome would pay it twice. */
function cashedOut(req: TxRequest, what: string): Answer {
  return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId} was cashed out: a cash-out is final, the bet is not ${what} after it`);
}

/** Settling or cashing out a bet whose confirmed stake all came back would pay winnings from nowhere. */
function nothingInPlay(req: TxRequest, bet: BetState, what: string): Answer {
  // A confirm of 0.00 is refused now; a bet of an earlier sandbox's schema may still have one.
  const why = bet.confirmed === 0 ? 'nothing of its stake was accepted' : 'its stake was refunded in full';
  return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId}: ${why}, nothing is left to ${what}`);
}

/** What each credit is about, for the refusal of one without a bet taken. */
const CREDIT_NEEDS: Record<string, string> = {
  betpartialrefund: 'no stake was taken to refund in part (a hold goes back with refundBet)',
  cashout: 'no stake was taken to cash out',
  adjustreversetransaction: 'no stake was taken for a manual adjustment to correct',
};

/**
 * A credit adds to the balance, for a bet taken: wagerline sends a partial refund, a cash-out or a
 * manual adjustment only for a bet it confirmed, so a credit of a bet never reserved
 * (UNKNOWN_BET) or not confirmed (BET_STATE_CONFLICT) is a caller's bug a real wallet would refuse,
 * not money to pay. A cash-out stands for the bet's winnings: like settleBet, not once its whole
 * stake came back. It is the bet's end (wagerline cashes out only an open bet, and sends nothing
 * on its outcome afterwards): neither a settled bet nor a cashed-out one is cashed out (again), and
 * no partial refund follows it; an adjustment may. A partial refund (betpartialrefund) carries the
 * bet's bonusFlag, as refundBet does, and counts with refundBet's toward the confirmed amount, so
 * that the two together never return more than was taken.
 */
function creditEffect(req: TxRequest, bet: BetState | undefined, useBonus: boolean, flags: RuleFlags): Effect | Answer {
  const needs = CREDIT_NEEDS[req.transactionType ?? ''] ?? 'no stake was taken';
  if (!bet) return errorAnswer('UNKNOWN_BET', `bet ${req.betId} has no successful reserve: ${needs}`);
  if (bet.status !== 'confirmed') return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId} is ${bet.status}, not confirmed: ${needs}`);
  if (req.transactionType === 'adjustreversetransaction') return move(useBonus, req.amount);
  if (bet.closedBy === 'cashout') return cashedOut(req, req.transactionType === 'cashout' ? 'cashed out again' : 'refunded in part');
  if (req.transactionType === 'cashout') {
    if (bet.closedBy === 'settleBet') {
      return errorAnswer('BET_STATE_CONFLICT', `bet ${req.betId} was settled: a settled bet is not cashed out, settleBet paid its outcome`);
    }
    if (bet.refunded >= bet.confirmed) return nothingInPlay(req, bet, 'cash out');
    return move(useBonus, req.amount, { winnings: req.amount, closedBy: 'cashout' });
  }
  // Part of the stake goes back where the stake came from, as with refundBet.
  if (!flags.ignoreBonus && req.bonusFlag !== bet.bonus) {
    return errorAnswer('BONUS_FLAG_MISMATCH', `bet ${req.betId} was reserved with bonusFlag ${bet.bonus}: its stake is refunded there`);
  }
  const left = bet.confirmed - bet.refunded;
  if (req.amount > left) return errorAnswer('REFUND_EXCEEDS_BET', `partial refund ${centsToDollars(req.amount)} is more than the ${centsToDollars(left)} confirmed and not yet refunded`);
  return move(useBonus, req.amount, { refunded: req.amount });
}

export function isEffect(value: Effect | Answer): value is Effect {
  return 'held' in value;
}

export function applyToUser(user: UserState, e: Effect): UserState {
  return { cash: user.cash + e.cash, bonus: user.bonus + e.bonus, reserved: user.reserved + e.reserved };
}

export function applyToBet(bet: BetState | undefined, ids: { betId: string; userId: string }, e: Effect): BetState | undefined {
  const base: BetState | undefined = bet ?? (e.create
    ? { betId: ids.betId, userId: ids.userId, bonus: e.create.bonus, status: 'reserved', held: 0, confirmed: 0, refunded: 0, settled: 0, winnings: 0, closedBy: null }
    : undefined);
  if (!base) return undefined;
  return {
    ...base,
    status: e.status ?? base.status,
    // A cash-out stays the bet's end: replayed by the idempotency break mode, a settleBet does not undo it.
    closedBy: base.closedBy === 'cashout' ? 'cashout' : e.closedBy ?? base.closedBy,
    held: base.held + e.held,
    confirmed: base.confirmed + e.confirmed,
    refunded: base.refunded + e.refunded,
    settled: base.settled + e.settled,
    // An effect stored before winnings were tracked has none (replayed by the idempotency break mode).
    winnings: base.winnings + (e.winnings ?? 0),
  };
}

/** spec 2.6 success body; the balances after the call are extra fields (allowed), in dollars. */
export function successAnswer(req: TxRequest, user: UserState): Answer {
  return {
    status: 200,
    body: {
      success: true,
      transactionId: req.transactionId,
      balance: { cash: centsToDollars(user.cash), bonus: centsToDollars(user.bonus), reserved: centsToDollars(user.reserved) },
    },
  };
}

/** What makes two requests "the same transaction": a replay must match on all of these. */
export function fingerprint(req: TxRequest): string {
  return JSON.stringify([req.op, req.betId, req.userId, req.bonusFlag, req.amount, req.transactionType ?? null]);
}
