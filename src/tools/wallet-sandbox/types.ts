// Public types of the reference wallet sandbox (the operator side of spec 4.3, 2.4–2.6).
import type pg from 'pg';
import { OPERATIONS, type Operation } from '../../wallet-protocol/operations.ts';

/** The six transaction endpoints of spec 4.3 (the wire protocol's operations), plus the token endpoint. */
export const TRANSACTION_OPS = OPERATIONS;
export type TransactionOp = Operation;
export type SandboxOp = TransactionOp | 'auth/token';

/**
 * Ways to make the sandbox misbehave on purpose, so the conformance checker can be shown to
 * catch each fault (docs/wallet-sandbox.md describes each one).
 */
export const BREAK_MODES = [
  'idempotency', // a replayed transactionId moves the money again
  'extra-fields', // unknown request fields are refused with 400
  'slow', // every transaction answer comes after slowMs (default 11 s, over the 10 s bound of spec 8)
  'error-shape', // errors are JSON without code/statusCode: {"error": "..."}
  'error-text', // errors are plain text
  'mismatch', // the same transactionId with another body is answered as a replay
  'partial', // confirm takes the whole reservation, ignoring a lower accepted amount
  'bonus', // bonusFlag is ignored: every amount moves cash
  'auth', // any bearer token / API key is accepted
  'race', // concurrent duplicates of one transactionId can both take effect
  'transaction-types', // debit/credit refuse some transactionType values of spec 2.4
  'token-shape', // /auth/token answers without expires_in and token_type
  'whole-units', // dollar amounts lose their cents (12.50 is taken as 12)
  'settle-once', // settleBet pays winners only, once: a 0.00 settleBet and a second one are refused
  'bonus-winnings', // a bonus bet's reversed winnings and cash-out move the bonus balance, not cash
] as const;
export type BreakMode = (typeof BREAK_MODES)[number];

export type SandboxAuth =
  | { kind: 'client_credentials'; clientId: string; clientSecret: string; tokenTtlSeconds?: number }
  | { kind: 'api_key'; apiKey: string; header?: string };

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  auth: SandboxAuth;
  /** Default memory. The postgres store keeps its tables in `schema` (default wallet_sandbox). */
  store?: { kind: 'memory' } | { kind: 'postgres'; pool: pg.Pool; schema?: string };
  /** How wire amounts are read: decimal dollars with at most two decimals (default) or integer cents. */
  amountUnit?: 'dollars' | 'cents';
  /** Cash balance of a user created on first sight, in dollars. Default "1000.00". */
  openingBalance?: string;
  /** Bonus balance of a user created on first sight, in dollars. Default "0.00". */
  openingBonus?: string;
  /** Delay before every transaction is processed. Default 0. */
  latencyMs?: number;
  /** Share (0..1) of transaction calls answered 503 SIMULATED_FAILURE without effect. Default 0. */
  failRate?: number;
  breaks?: BreakMode[];
  /** Delay of the `slow` break mode. Default 11000 ms. */
  slowMs?: number;
  /** The most requests `requests()` keeps: the oldest tenth is dropped when full. Default 100,000. */
  requestLogLimit?: number;
  /**
   * When set, every transaction call must carry wagerline's request signature made with this
   * secret (docs/wallet.md, "Signing"); otherwise it is refused with 401 INVALID_SIGNATURE.
   */
  signingSecret?: string;
  /** Source of randomness for failRate. Default Math.random. */
  random?: () => number;
  /** Clock for token expiry and request timestamps. Default () => new Date(). */
  now?: () => Date;
}

export interface FaultSpec {
  /** Which call the fault hits; omitted = any of the six transaction calls (never auth/token). */
  op?: SandboxOp;
  kind: 'status' | 'hang' | 'stall' | 'garbage' | 'empty' | 'html' | 'reset' | 'apply-then-fail';
  /**
   * status: the status to answer (default 500); garbage/empty/html/stall: default 200;
   * apply-then-fail: default 500. hang never answers; stall sends the headers and part of a body,
   * then nothing (both until close()).
   */
  status?: number;
  /** How many matching calls misbehave. Default 1. */
  times?: number;
  /** status kind: the body to answer (object → JSON, string → as is). Default an error body. */
  body?: unknown;
}

export interface RecordedRequest {
  op: string;
  transactionId?: string;
  body: unknown;
  /** HTTP status answered; 0 when no answer was given (hang, reset). */
  status: number;
  at: Date;
}

export interface Balances {
  cash: string;
  bonus: string;
  reserved: string;
}

/** A bet placed before the test or benchmark talks to the sandbox: reserved, then confirmed. */
export interface SeededBet {
  betId: string;
  userId: string;
  bonusFlag: boolean;
  /** The stake reserved, in dollars ("12.50"). */
  reserved: string;
  /** The stake confirmed (accepted), in dollars; at most `reserved`. */
  confirmed: string;
  reserveTransactionId: string;
  confirmTransactionId: string;
}

export interface WalletSandbox {
  url: string;
  close(): Promise<void>;
  /** Scripted faults for tests: the next matching calls misbehave, then normal service resumes. */
  injectFaults(faults: FaultSpec[]): void;
  /** Every request received (after parsing), in arrival order. */
  requests(): ReadonlyArray<RecordedRequest>;
  balances(userId: string): Promise<Balances>;
  /** How many times each transactionId took effect (moved money) — 1 for a correct caller. */
  effects(): Promise<Map<string, number>>;
  seedUser(userId: string, balances: { cash?: string; bonus?: string }): Promise<void>;
  /**
   * Bulk setup for tests and benchmarks: applies each bet's reserve and confirm straight to the
   * store under the sandbox's rules (no HTTP, no break modes), as if they had been called with
   * these transactionIds. Throws on the first one the rules refuse (e.g. insufficient funds).
   */
  seedBets(bets: SeededBet[]): Promise<void>;
  /** Makes every issued token invalid: the next call with one gets 401 INVALID_TOKEN. */
  revokeTokens(): void;
  /** Transaction calls being handled now, and the most at once since start (or the last reset). */
  load(options?: { reset?: boolean }): { inFlight: number; peak: number };
}
