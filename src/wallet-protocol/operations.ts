// Request bodies of the wallet calls, exactly as spec 2.4 and 2.5 name their fields:
// common transactionId, betId, userId, bonusFlag, amount; then per operation token + metadata
// (reserve), betMetadata (confirm), transactionType (debit, credit). Bodies are rebuilt from the
// stored row on every attempt, deterministically, so a retry sends the same details.
import { AppError } from '../errors.ts';
import { amountOnWire, type AmountUnit } from './amounts.ts';
import { validateBetMetadata, type BetMetadata } from './bet-metadata.ts';
import { isUuid } from '../racing/values.ts';

export const OPERATIONS = ['reserve', 'confirm', 'refundBet', 'settleBet', 'debit', 'credit'] as const;
export type Operation = (typeof OPERATIONS)[number];
/** The operations delivered by the outbox; reserve is synchronous (spec 3, 8). */
export const DURABLE_OPERATIONS = ['confirm', 'refundBet', 'settleBet', 'debit', 'credit'] as const;
export type DurableOperation = (typeof DURABLE_OPERATIONS)[number];

export const TRANSACTION_TYPES = {
  debit: ['deductbetwin', 'betwincancelled'],
  credit: ['adjustreversetransaction', 'cashout', 'betpartialrefund'],
} as const;

export interface ReserveMetadata {
  userId: string;
  brandName: string;
  brandUserId: string;
  data: string;
}

/** Per-operation fields besides the common ones, as stored in wallet_calls.extra. */
export interface CallExtra {
  transactionType?: string;
  betMetadata?: BetMetadata;
  metadata?: ReserveMetadata;
}

export interface WireCall {
  op: Operation;
  transactionId: string;
  betId: string;
  userId: string;
  bonusFlag: boolean;
  /** Decimal dollars, two decimals (NUMERIC text). */
  amount: string;
  extra: CallExtra;
  /** reserve only: the token used at bet placement. */
  token?: string;
}

export function requireUuid(value: unknown, what: string): string {
  if (!isUuid(value)) {
    throw new AppError('bad_request', `${what} must be a UUID, got ${JSON.stringify(value)}`);
  }
  return value.toLowerCase();
}

/** Checks the operation-specific fields of a call and returns what is stored in `extra`. */
export function validateExtra(op: Operation, input: { betId?: string; transactionType?: string; betMetadata?: unknown; metadata?: unknown }): CallExtra {
  const stray = (field: string, present: unknown) => {
    if (present !== undefined) throw new AppError('bad_request', `${field} is not a field of ${op} (docs/wallet.md, Request bodies)`);
  };
  if (op !== 'debit' && op !== 'credit') stray('transactionType', input.transactionType);
  if (op !== 'confirm') stray('betMetadata', input.betMetadata);
  if (op !== 'reserve') stray('metadata', input.metadata);
  switch (op) {
    case 'debit':
    case 'credit': {
      const allowed: readonly string[] = TRANSACTION_TYPES[op];
      if (!input.transactionType || !allowed.includes(input.transactionType)) {
        throw new AppError('bad_request', `transactionType of ${op} must be one of ${allowed.join(', ')}, got ${JSON.stringify(input.transactionType)}`);
      }
      return { transactionType: input.transactionType };
    }
    case 'confirm': {
      if (input.betMetadata === undefined) throw new AppError('bad_request', 'confirm needs betMetadata, an object (docs/wallet.md, Request bodies)');
      return { betMetadata: validateBetMetadata(input.betMetadata, input.betId) };
    }
    case 'reserve': {
      const meta = input.metadata as Partial<ReserveMetadata> | undefined;
      if (!meta || typeof meta !== 'object') throw new AppError('bad_request', 'reserve needs metadata {userId, brandName, brandUserId, data}');
      for (const key of ['userId', 'brandName', 'brandUserId', 'data'] as const) {
        if (typeof meta[key] !== 'string') throw new AppError('bad_request', `reserve metadata.${key} must be a string`);
      }
      return { metadata: { userId: meta.userId!, brandName: meta.brandName!, brandUserId: meta.brandUserId!, data: meta.data! } };
    }
    default:
      return {};
  }
}

/**
 * JSON text with every object's keys in code-unit order, whatever order they were given in. The
 * call's objects (betMetadata, reserve metadata) are sent first as the caller built them and on a
 * retry as read back from jsonb, which reorders keys: without one order for both, a retry would
 * carry other bytes than the first ask, and a wallet that fingerprints the body it first received
 * under an Idempotency-Key would refuse it (spec 8: retried "with the same details").
 */
export function canonicalJson(value: unknown): string {
  const json = (value as { toJSON?: () => unknown } | null)?.toJSON;
  if (typeof json === 'function') return canonicalJson(json.call(value));
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === 'function' ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined && typeof (value as Record<string, unknown>)[k] !== 'function')
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The exact JSON text sent for a call. amount is spliced in as a number literal in the unit. */
export function buildBody(call: WireCall, unit: AmountUnit): string {
  const parts: string[] = [
    `"transactionId":${JSON.stringify(call.transactionId)}`,
    `"betId":${JSON.stringify(call.betId)}`,
    `"userId":${JSON.stringify(call.userId)}`,
    `"bonusFlag":${call.bonusFlag ? 'true' : 'false'}`,
    `"amount":${amountOnWire(call.amount, unit)}`,
  ];
  if (call.op === 'reserve') {
    parts.push(`"token":${JSON.stringify(call.token ?? '')}`, `"metadata":${canonicalJson(call.extra.metadata ?? {})}`);
  }
  if (call.op === 'confirm') parts.push(`"betMetadata":${canonicalJson(call.extra.betMetadata ?? {})}`);
  if (call.op === 'debit' || call.op === 'credit') parts.push(`"transactionType":${JSON.stringify(call.extra.transactionType)}`);
  return `{${parts.join(',')}}`;
}
