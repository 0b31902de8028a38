// What a sandbox store does: run one transaction atomically (idempotent by transactionId), and
// answer the inspection calls. Two stores: memory-store.ts and pg-store.ts.
import { errorAnswer, type Answer } from './codes.ts';
import { centsToDollars } from '../../racing/money.ts';
import type { Effect, RuleFlags, UserState } from './ledger.ts';
import type { TxRequest } from './validate.ts';

export interface RunFlags extends RuleFlags {
  /** break mode `idempotency`: a replay applies its effect again. */
  reapplyOnReplay: boolean;
  /** break mode `mismatch`: a replay with another body is answered as a replay. */
  ignoreMismatch: boolean;
  /** break mode `race`: no lock between looking up a transactionId and applying it. */
  racy: boolean;
}

/**
 * In the `race` break mode, how long a call waits between looking up its transactionId and
 * applying it. Wide enough that copies sent at once all look before the first one applies, even on
 * a loaded machine: the break must show every time, or the checker's test of it is a coin toss.
 */
const RACE_WINDOW_MS = 50;

export const raceWindow = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, RACE_WINDOW_MS));

export interface StoredTransaction {
  transactionId: string;
  op: string;
  betId: string;
  userId: string;
  bonusFlag: boolean;
  amount: number;
  transactionType: string | null;
  fingerprint: string;
  status: number;
  body: unknown;
  effect: Effect;
  effectCount: number;
  at: Date;
}

export interface TransactionView {
  transactionId: string;
  op: string;
  betId: string;
  userId: string;
  bonusFlag: boolean;
  amount: string;
  transactionType: string | null;
  status: number;
  effectCount: number;
  at: string;
}

export interface Store {
  init(): Promise<void>;
  execute(req: TxRequest, fingerprint: string, flags: RunFlags, now: Date): Promise<Answer>;
  /** A user never seen reads as the opening balances (and is not created). */
  balances(userId: string): Promise<UserState & { known: boolean }>;
  seedUser(userId: string, balances: { cash?: number; bonus?: number }): Promise<void>;
  effects(): Promise<Map<string, number>>;
  transactions(betId: string): Promise<TransactionView[]>;
}

export interface Opening {
  cash: number;
  bonus: number;
}

export function mismatchAnswer(stored: StoredTransaction): Answer {
  return errorAnswer('TRANSACTION_MISMATCH',
    `transactionId ${stored.transactionId} was already used for ${stored.op} of bet ${stored.betId} ` +
      `(user ${stored.userId}, bonusFlag ${stored.bonusFlag}, amount ${centsToDollars(stored.amount)}` +
      `${stored.transactionType ? `, ${stored.transactionType}` : ''}) and cannot be reused with another body`);
}

export function view(t: StoredTransaction): TransactionView {
  return {
    transactionId: t.transactionId, op: t.op, betId: t.betId, userId: t.userId, bonusFlag: t.bonusFlag,
    amount: centsToDollars(t.amount), transactionType: t.transactionType, status: t.status,
    effectCount: t.effectCount, at: t.at.toISOString(),
  };
}

export function record(req: TxRequest, fingerprint: string, answer: Answer, effect: Effect, at: Date): StoredTransaction {
  return {
    transactionId: req.transactionId, op: req.op, betId: req.betId, userId: req.userId, bonusFlag: req.bonusFlag,
    amount: req.amount, transactionType: req.transactionType ?? null, fingerprint, status: answer.status,
    body: answer.body, effect, effectCount: 1, at,
  };
}
