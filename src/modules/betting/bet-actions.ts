// Changes an operator makes to one bet (docs/settlement-running.md, docs/bets-admin.md): cancel, cash out,
// manual adjustment. Each is ONE transaction that locks the bet, checks the move against the
// lifecycle (racing/bet-lifecycle.ts), queues its wallet calls through the outbox and records the
// change, with who made it, in the bet's history. A second cancel changes nothing and sends
// nothing; two concurrent cancels queue for the same row lock, so only the first has an effect.
// And the operator's reads of one bet: the whole record (show) and its history.
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { AppError, echo } from '../../errors.ts';
import type { Move } from '../../racing/bet-ledger.ts';
import { isOpen, isTaken, moveProblem } from '../../racing/bet-lifecycle.ts';
import { KIND_RULES, type BetKind } from '../../racing/bet-kinds.ts';
import { centsToDollars, MAX_ACTION_CENTS, numberToDecimal, parseDollars } from '../../racing/money.ts';
import { decimal, payoutCents, payoutMultiple } from '../../racing/stakes.ts';
import { isUuid } from '../../racing/values.ts';
import { operatorText, unstorable } from '../../http/text-rules.ts';
import { cashOutLimit } from '../../racing/cash-out.ts';
import type { RaceFacts } from '../../racing/settle.ts';
import type { IntakeService } from '../intake/intake.service.ts';
import type { WalletService } from '../wallet/wallet.service.ts';
import * as q from './betting.queries.ts';
import * as lq from './limits.queries.ts';
import { recordOf, type BetRecord, type HistoryEntry } from './bet-record.ts';
import { changeOf, planCancel, settleBetOf } from './settle-plan.ts';
import { callOf, queueCalls, reportChanges } from './settlement.service.ts';
import * as sq from './settlement.queries.ts';

export interface BetActionDeps {
  db: Pool;
  clock: () => Date;
  /** A bet pending for longer was interrupted: rejected before any action, as every read shows it. */
  interruptedAfterMs: number;
  wallet: Pick<WalletService, 'enqueueMany' | 'callsOfBet'>;
  reporting: Pick<IntakeService, 'reportPlacedBets'>;
  /**
   * The facts of races as settlement reads them, once share-locked in `tx` (the catalogue's
   * lockedRaceFacts): what a cash out may pay, with no scratching or result landing meanwhile.
   */
  raceFacts: (races: Array<{ meetingId: number | string; raceNumber: number }>, tx: Queryable) => Promise<Map<string, RaceFacts>>;
}

export interface BetRef {
  tenantId: string;
  betId: string;
}

/** What an action did: the bet after it and the wallet calls it queued. */
export interface ActionResult {
  tenant_id: string;
  bet_id: string;
  status: string;
  previous_status: string;
  changed: boolean;
  payout: string;
  refunded: string;
  cash_out: string | null;
  adjusted: string;
  calls: Array<{ op: string; amount: string; transactionType?: string }>;
}

function resultOf(bet: q.BetRow, after: Partial<sq.BetChange> | null, moves: Move[]): ActionResult {
  const refunded = (parseDollars(after?.refunded ?? bet.refunded)! + parseDollars(after?.partialRefund ?? bet.partial_refund)!);
  return {
    tenant_id: bet.tenant_id, bet_id: bet.bet_id, status: after?.to ?? bet.status, previous_status: bet.status, changed: after !== null,
    payout: after?.payout ?? bet.payout, refunded: centsToDollars(refunded), cash_out: after?.cashOut ?? bet.cash_out,
    adjusted: after?.adjusted ?? bet.adjusted,
    calls: moves.map((m) => ({ op: m.op, amount: centsToDollars(m.amountCents), ...('transactionType' in m && { transactionType: m.transactionType }) })),
  };
}

/** Dollars as decimal text ("12.50") or a JSON number with at most two decimals; never rounded. */
function amountCents(field: string, value: unknown): bigint {
  let cents: bigint | undefined;
  if (typeof value === 'string') cents = parseDollars(value);
  else if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    const { text, sentPlaces } = numberToDecimal(value, 2);
    cents = sentPlaces > 2 ? undefined : parseDollars(text);
  }
  if (cents === undefined || cents <= 0n || cents >= MAX_ACTION_CENTS) {
    const message = `must be an amount in dollars above 0 and below 100,000,000,000 with at most two decimals, e.g. "12.50", got ${echo(value)}`;
    throw new AppError('validation_failed', `${field} ${message}`, { extensions: { errors: [{ field, message }] } });
  }
  return cents;
}

/** A reason: trimmed, 1 to 500 characters when `required`, else null when empty (text-rules.ts). */
const reasonText = (value: unknown, required: boolean): string | null => operatorText('reason', value, required);

/** Who made a change, for the bet's history: "cli", "client:<client_id>", … */
export interface Actor {
  by?: string;
}

/** An adjustment's idempotency key (Idempotency-Key, --idempotency-key): 1 to 128 characters, no control characters. */
function adjustmentKey(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length < 1 || value.length > 128 || /[\u0000-\u001f\u007f]/.test(value) || unstorable(value)) {
    const message = 'must be 1 to 128 characters, without control characters or unpaired surrogates';
    throw new AppError('validation_failed', `idempotency key ${message}`, { extensions: { errors: [{ field: 'idempotency-key', message }] } });
  }
  return value;
}

interface AdjustmentDetail { amount: string; reason: string; key?: string }

/**
 * The bet's adjustment made under `key` earlier, if any: the same amount and reason is a repeat
 * (nothing more is credited), anything else is another adjustment and needs a key of its own.
 */
async function earlierAdjustment(tx: Queryable, bet: q.BetRow, key: string, amount: string, reason: string): Promise<boolean> {
  const made = (await sq.historyOf(tx, bet.tenant_id, bet.bet_id))
    .find((h) => h.cause === 'adjustment' && (h.detail as AdjustmentDetail | null)?.key === key)?.detail as AdjustmentDetail | undefined;
  if (!made) return false;
  if (made.amount !== amount || made.reason !== reason) {
    throw new AppError('idempotency_conflict', `idempotency key ${echo(key)} was used for an adjustment of ${made.amount} (${echo(made.reason)}) `
      + 'on this bet; use a new key for another adjustment');
  }
  return true;
}

export function createBetActions(deps: BetActionDeps) {
  const { db, clock } = deps;

  function checkRef(ref: BetRef): void {
    if (!isUuid(ref.tenantId) || !isUuid(ref.betId)) throw new AppError('bet_not_found', `no bet ${echo(ref.betId)} of tenant ${echo(ref.tenantId)} (both are UUIDs)`);
  }
  const notFound = (ref: BetRef) => new AppError('bet_not_found', `tenant ${ref.tenantId} has no bet ${ref.betId}`);

  async function locked<T>(ref: BetRef, work: (tx: Queryable, bet: q.BetRow) => Promise<T>): Promise<T> {
    checkRef(ref);
    return withTransaction(db, async (tx) => {
      const bet = await q.findBet(tx, ref.tenantId, ref.betId, true);
      if (!bet) throw notFound(ref);
      return work(tx, await q.rejectInterrupted(tx, bet, clock(), deps.interruptedAfterMs));
    });
  }

  /** The bet without a lock: a read never waits for a settlement batch. */
  async function read(ref: BetRef): Promise<q.BetRow> {
    checkRef(ref);
    const bet = await q.findBet(db, ref.tenantId, ref.betId);
    if (!bet) throw notFound(ref);
    return bet;
  }

  async function historyOf(bet: q.BetRow): Promise<HistoryEntry[]> {
    return (await sq.historyOf(db, bet.tenant_id, bet.bet_id)).map((h) => ({
      at: h.at.toISOString(), from: h.from_status, to: h.to_status, cause: h.cause, detail: h.detail,
    }));
  }

  function refuse(bet: q.BetRow, action: string, why: string): never {
    throw new AppError('bet_state_conflict', `bet ${bet.bet_id} cannot be ${action}: ${why}`, { extensions: { status: bet.status } });
  }

  async function commit(tx: Queryable, bet: q.BetRow, change: sq.BetChange, moves: Move[]): Promise<ActionResult> {
    await queueCalls(deps.wallet, tx, moves.map((m) => callOf(bet, m)));
    const now = clock();
    await sq.applyChanges(tx, [change], now);
    const legs = await q.legsOf(tx, bet.tenant_id, bet.bet_id);
    await releaseLiability(tx, bet, legs, change);
    await reportChanges(deps.reporting, tx, [[bet, legs, change]], now);
    return resultOf(bet, change, moves);
  }

  /**
   * An open WIN or PLACE bet closed before its race is settled (cancelled, cashed out) no longer
   * weighs on its runner's liability: the payout its take added (accepted stake × payoutMultiple) comes off,
   * so max_runner_liability accepts new bets into that room again.
   */
  async function releaseLiability(tx: Queryable, bet: q.BetRow, legs: q.LegRow[], change: sq.BetChange): Promise<void> {
    if (!isOpen(bet.status) || isOpen(change.to as q.BetRow['status']) || (bet.kind !== 'WIN' && bet.kind !== 'PLACE') || !bet.fixed_odds) return;
    const leg = legs[0]!;
    const payout = payoutCents(parseDollars(bet.accepted_stake!)!, payoutMultiple(decimal(bet.fixed_odds)!, bet.bonus));
    await lq.releaseLiability(tx, { tenantId: bet.tenant_id, meetingId: Number(leg.meeting_id), raceNumber: leg.race_number,
      runner: leg.selections[0]![0]!, kind: bet.kind }, centsToDollars(payout));
  }

  return {
    /** Cancels a bet: winnings paid reversed (debit betwincancelled), then the stake returned (refundBet). */
    async cancelBet(ref: BetRef, options: { reason?: string | null } & Actor = {}): Promise<ActionResult> {
      const reason = reasonText(options.reason, false);
      return locked(ref, async (tx, bet) => {
        if (bet.status === 'cancelled') return resultOf(bet, null, []);
        const problem = moveProblem(bet.status, 'cancelled');
        if (problem) refuse(bet, 'cancelled', problem);
        const plan = planCancel(bet, clock(), reason, options.by ?? 'operator');
        return commit(tx, bet, plan.change!, plan.moves);
      });
    },

    /** Cashes out an open fixed-odds bet at the quoted value (credit cashout); the bet is then closed. */
    async cashOut(ref: BetRef, value: unknown, actor: Actor = {}): Promise<ActionResult> {
      const cents = amountCents('amount', value);
      return locked(ref, async (tx, bet) => {
        if (!isOpen(bet.status)) refuse(bet, 'cashed out', `it is ${bet.status}; only an accepted bet not yet settled can be`);
        if (KIND_RULES[bet.kind as BetKind].pricing !== 'fixed') refuse(bet, 'cashed out', `${bet.kind} is a tote bet; only fixed-odds bets are cashed out`);
        // What it can still return on its races' facts now (a bonus bet: its winnings only).
        const legs = await q.legsOf(tx, bet.tenant_id, bet.bet_id);
        const facts = await deps.raceFacts(legs.map((l) => ({ meetingId: l.meeting_id, raceNumber: l.race_number })), tx);
        const limit = cashOutLimit(settleBetOf(bet, legs, facts));
        if ('refusal' in limit) refuse(bet, 'cashed out', limit.refusal);
        const most = limit.mostCents;
        if (cents > most) throw new AppError('validation_failed', `amount ${centsToDollars(cents)} is more than the bet can return (${centsToDollars(most)})`);
        const moves: Move[] = [{ op: 'credit', amountCents: cents, transactionType: 'cashout' }];
        const change = changeOf(bet, 'cashed_out', moves, clock(), 'cash_out', { amount: centsToDollars(cents), by: actor.by ?? 'operator' }, { cashOut: centsToDollars(cents) });
        return commit(tx, bet, change, moves);
      });
    },

    /**
     * A manual adjustment in the user's favour (credit adjustreversetransaction), with its reason.
     * With `key`, made once: a repeat of the same amount and reason changes nothing.
     */
    async adjust(ref: BetRef, value: unknown, reason: unknown, actor: Actor & { key?: unknown } = {}): Promise<ActionResult> {
      const cents = amountCents('amount', value);
      const why = reasonText(reason, true)!;
      const key = adjustmentKey(actor.key);
      const amount = centsToDollars(cents);
      return locked(ref, async (tx, bet) => {
        // Under the bet's lock: two requests with one key queue here, and the second finds the first.
        if (key !== undefined && await earlierAdjustment(tx, bet, key, amount, why)) return resultOf(bet, null, []);
        if (!isTaken(bet.status)) refuse(bet, 'adjusted', `it is ${bet.status}; only a bet that was taken can be`);
        const moves: Move[] = [{ op: 'credit', amountCents: cents, transactionType: 'adjustreversetransaction' }];
        const adjusted = centsToDollars(parseDollars(bet.adjusted)! + cents);
        const detail = { amount, reason: why, by: actor.by ?? 'operator', ...(key !== undefined && { key }) };
        const change = changeOf(bet, bet.status, moves, clock(), 'adjustment', detail, { adjusted });
        return commit(tx, bet, change, moves);
      });
    },

    /** The bet's states with time and cause, oldest first. */
    async history(ref: BetRef): Promise<HistoryEntry[]> {
      return historyOf(await read(ref));
    },

    /** The whole bet: its row, legs, wallet calls with their status, and history (CLI, admin API, back-office). */
    async show(ref: BetRef): Promise<BetRecord> {
      const bet = await read(ref);
      const [legs, calls, history] = await Promise.all([q.legsOf(db, bet.tenant_id, bet.bet_id), deps.wallet.callsOfBet(bet.bet_id), historyOf(bet)]);
      return recordOf(bet, legs, calls.calls.filter((c) => c.tenant_id === bet.tenant_id), history);
    },
  };
}

export type BetActions = ReturnType<typeof createBetActions>;
