// Validation of the request bodies of spec 2.4 and 2.5. Unknown fields are tolerated (spec 2.4:
// "the operator must tolerate extra fields") unless the extra-fields break mode is on.
import { centsFromWire } from '../../racing/money.ts';
import { betMetadataProblem, isOfKind, shapeProblem, type ValueKind } from '../../wallet-protocol/bet-metadata.ts';
import { TRANSACTION_TYPES as PROTOCOL_TYPES } from '../../wallet-protocol/operations.ts';
import { errorAnswer, type Answer } from './codes.ts';
import type { TransactionOp } from './types.ts';
import { isUuid } from '../../racing/values.ts';

/** Largest amount accepted: 10^13 cents (100 billion dollars), far inside the exact integer range. */
export const MAX_CENTS = 10n ** 13n;

export interface TxRequest {
  op: TransactionOp;
  transactionId: string;
  betId: string;
  userId: string;
  bonusFlag: boolean;
  /** Integer cents. */
  amount: number;
  transactionType?: string;
}

export const TRANSACTION_TYPES: Partial<Record<TransactionOp, readonly string[]>> = PROTOCOL_TYPES;

const COMMON = ['transactionId', 'betId', 'userId', 'bonusFlag', 'amount'];
const EXTRA: Record<TransactionOp, string[]> = {
  reserve: ['token', 'metadata'],
  confirm: ['betMetadata'],
  refundBet: [],
  settleBet: [],
  debit: ['transactionType'],
  credit: ['transactionType'],
};

type Kind = ValueKind;
const kindOk = isOfKind;

const METADATA: Record<string, Kind> = { userId: 'string', brandName: 'string', brandUserId: 'string', data: 'string' };


export interface ValidateOptions {
  unit: 'dollars' | 'cents';
  refuseExtraFields: boolean;
  allowedTypes: (op: TransactionOp) => readonly string[];
}

export function validateTransaction(op: TransactionOp, body: unknown, options: ValidateOptions): TxRequest | Answer {
  const bad = (message: string) => errorAnswer('VALIDATION_ERROR', message);
  if (!kindOk(body, 'object')) return bad('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const name of ['transactionId', 'betId', 'userId']) {
    if (typeof b[name] !== 'string' || !isUuid(b[name] as string)) return bad(`${name} must be a UUID string`);
  }
  if (typeof b.bonusFlag !== 'boolean') return bad('bonusFlag must be a boolean');
  const cents = centsFromWire(b.amount, options.unit, MAX_CENTS);
  const amount = cents === undefined ? undefined : Number(cents);
  if (amount === undefined) {
    return bad(options.unit === 'cents'
      ? 'amount must be a non-negative integer number of cents'
      : 'amount must be a non-negative number of dollars with at most two decimals');
  }
  if (options.refuseExtraFields) {
    const unknown = Object.keys(b).filter((k) => !COMMON.includes(k) && !EXTRA[op].includes(k));
    if (unknown.length) return bad(`unknown field(s): ${unknown.join(', ')}`);
  }
  if (op === 'reserve') {
    if (typeof b.token !== 'string') return bad('token must be a string (the token used at bet placement)');
    const problem = shapeProblem(b.metadata, 'metadata', METADATA, { wallet: true });
    if (problem) return bad(problem);
  }
  if (op === 'confirm') {
    const problem = betMetadataProblem(b.betMetadata, { wallet: true });
    if (problem) return bad(problem);
  }
  let transactionType: string | undefined;
  if (op === 'debit' || op === 'credit') {
    if (typeof b.transactionType !== 'string') return bad('transactionType must be a string');
    if (!options.allowedTypes(op).includes(b.transactionType)) {
      return errorAnswer('UNKNOWN_TRANSACTION_TYPE',
        `transactionType "${b.transactionType}" is not accepted by ${op}; expected one of ${TRANSACTION_TYPES[op]!.join(', ')}`);
    }
    transactionType = b.transactionType;
  }
  return {
    op, transactionId: (b.transactionId as string).toLowerCase(), betId: (b.betId as string).toLowerCase(),
    userId: (b.userId as string).toLowerCase(), bonusFlag: b.bonusFlag, amount, transactionType,
  };
}

export function isAnswer(value: TxRequest | Answer): value is Answer {
  return 'status' in value;
}
