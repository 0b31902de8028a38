// Many wallet calls queued at once (race settlement: up to 100,000 settleBet, refundBet, debit and
// credit calls in a few transactions). The same checks and the same outbox rows as
// enqueueWalletCall, in two statements per BATCH_STATEMENT_CALLS calls instead of two to four per
// call. For a single call enqueueWalletCall stays faster (its statements are smaller to plan).
import type { Queryable } from '../../../db/pool.ts';
import { AppError } from '../../../errors.ts';
import { checkBatch, insertBatch, type BatchBet, type BatchCall, type BatchCheck, type BatchProblem } from './enqueue-batch.queries.ts';
import {
  durableCall, noReservation, notConfigured, reservationReleased,
  type DurableCall, type EnqueuedCall, type WalletCallInput,
} from './enqueue.ts';

/** Calls per statement (measured: docs/performance-wallet.md). */
export const BATCH_STATEMENT_CALLS = 5000;

export interface BatchOptions {
  clock?: () => Date;
  /** Calls per statement (default BATCH_STATEMENT_CALLS). */
  statementCalls?: number;
}

/**
 * Queues many wallet calls in the caller's open transaction `tx`, as enqueueWalletCall would one
 * after another. All or nothing: when one call is refused (its fields, a refundBet without a
 * delivered reserve, a placement guard gone out, a tenant without wallet), the batch is refused
 * and nothing is written. The calls of one bet get consecutive sequence numbers in array order, so
 * the worker delivers them in that order. Returns the calls in the order given.
 */
export async function enqueueWalletCalls(tx: Queryable, inputs: readonly WalletCallInput[], options: BatchOptions = {}): Promise<EnqueuedCall[]> {
  if (!inputs.length) return [];
  const now = (options.clock ?? (() => new Date()))();
  const calls: DurableCall[] = [];
  for (let i = 0; i < inputs.length; i++) {
    try {
      calls.push(durableCall(inputs[i]!, now));
    } catch (error) {
      throw error instanceof AppError ? new AppError(error.code, `calls[${i}]: ${error.message}`, { cause: error }) : error;
    }
  }
  const statements = splitByBet(calls, options.statementCalls ?? BATCH_STATEMENT_CALLS);
  // Every statement's bets are checked (and their guards locked) before anything is written.
  const problems: BatchProblem[] = [];
  let guards: BatchCheck['guards'] = [];
  for (const { bets } of statements) {
    const check = await checkBatch(tx, bets);
    problems.push(...check.problems);
    guards = guards.concat(check.guards);
  }
  if (problems.length) throw refusal(calls, problems);
  const tenants = [...new Set(calls.map((c) => c.tenantId))];
  const out: EnqueuedCall[] = new Array(calls.length);
  for (let k = 0; k < statements.length; k++) {
    const placed = statements[k]!.calls;
    const rows: BatchCall[] = placed.map(({ i, pos }) => {
      const c = calls[i]!;
      return { tenant_id: c.tenantId, transaction_id: c.transactionId, bet_id: c.betId, user_id: c.userId, op: c.op,
        amount: c.amount, bonus_flag: c.bonusFlag, extra: c.extra as Record<string, unknown>, pos };
    });
    // The first statement releases the pending guards; the last wakes the workers, once per tenant.
    const seqs = await insertBatch(tx, rows, k === 0 ? guards : [], now, k === statements.length - 1 ? tenants : []);
    for (const { i } of placed) {
      const c = calls[i]!;
      const seq = seqs.get(c.transactionId);
      if (seq === undefined) throw notConfigured(c.tenantId); // its wallet was removed since the check
      out[i] = { transactionId: c.transactionId, betId: c.betId, seq, op: c.op };
    }
  }
  return out;
}

interface Statement {
  /** Index in the batch, and place among the calls of its bet in this statement (1, 2, …). */
  calls: Array<{ i: number; pos: number }>;
  bets: BatchBet[];
}

/**
 * Splits a batch into statements of at most `size` calls: bets in key order (the order in which
 * every statement locks them, so two batches cannot deadlock), a bet's calls together and in
 * array order (split across statements only when it has more than `size`).
 */
function splitByBet(calls: DurableCall[], size: number): Statement[] {
  const byBet = new Map<string, number[]>();
  for (let i = 0; i < calls.length; i++) {
    const key = calls[i]!.tenantId + calls[i]!.betId;
    const list = byBet.get(key);
    if (list) list.push(i);
    else byBet.set(key, [i]);
  }
  const statements: Statement[] = [{ calls: [], bets: [] }];
  for (const key of [...byBet.keys()].sort()) {
    const list = byBet.get(key)!;
    let open = statements.at(-1)!;
    if (open.calls.length && open.calls.length + list.length > size) statements.push(open = { calls: [], bets: [] });
    let bet: BatchBet | undefined;
    let pos = 0;
    for (const i of list) {
      if (open.calls.length === size) {
        statements.push(open = { calls: [], bets: [] });
        bet = undefined;
      }
      if (!bet) {
        open.bets.push(bet = { tenant_id: calls[i]!.tenantId, bet_id: calls[i]!.betId, refund: false });
        pos = 0;
      }
      bet.refund ||= calls[i]!.op === 'refundBet';
      open.calls.push({ i, pos: ++pos });
    }
  }
  return statements;
}

/** enqueueWalletCall's order of checks: the reserve of a refundBet, then the guard, then the wallet. */
const PRECEDENCE: Record<BatchProblem['problem'], number> = { no_reservation: 0, fired: 1, unconfigured: 2 };

/** The error of a refused batch: the first problem by kind, then by where its bet (tenant) first appears. */
function refusal(calls: DurableCall[], problems: BatchProblem[]): AppError {
  const first = new Map<string, number>();
  for (let i = calls.length - 1; i >= 0; i--) {
    first.set(calls[i]!.tenantId, i);
    first.set(calls[i]!.tenantId + calls[i]!.betId, i);
  }
  const rank = (p: BatchProblem) => PRECEDENCE[p.problem] * calls.length + first.get(p.tenant_id + (p.bet_id ?? ''))!;
  const p = problems.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  switch (p.problem) {
    case 'unconfigured':
      return notConfigured(p.tenant_id);
    case 'no_reservation':
      return noReservation(p.bet_id, p.status);
    case 'fired':
      return reservationReleased(p.bet_id);
  }
}
