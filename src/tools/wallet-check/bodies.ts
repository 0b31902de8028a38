// Request bodies of spec 2.4 and 2.5, built by the checker itself (fresh UUIDs per transaction).
// Amounts are integer cents here. The JSON text is made by the wallet protocol's own buildBody, the
// one delivery sends, so a wallet sees the checker's calls exactly as wagerline's (amounts such
// as 10.00, fields in the same order).
import { randomUUID } from 'node:crypto';
import { centsOnWire, type AmountUnit } from '../../racing/money.ts';
import { normalizeAmount } from '../../wallet-protocol/amounts.ts';
import type { BetMetadata } from '../../wallet-protocol/bet-metadata.ts';
import { buildBody, TRANSACTION_TYPES, type CallExtra, type Operation, type WireCall } from '../../wallet-protocol/operations.ts';

export type { AmountUnit };

/** Cents → the wire number: dollars with two decimals (from the decimal text, not by division) or cents. */
export function wireAmount(cents: number, unit: AmountUnit): number {
  return Number(centsOnWire(BigInt(cents), unit));
}

export interface Bet {
  betId: string;
  userId: string;
  bonusFlag: boolean;
}

export function newBet(userId: string, bonusFlag = false): Bet {
  return { betId: randomUUID(), userId, bonusFlag };
}

/** One transaction call: what it is, and the exact JSON text sent for it. */
export interface WalletRequest {
  op: Operation;
  transactionId: string;
  call: WireCall;
  unit: AmountUnit;
  text: string;
}

function request(call: WireCall, unit: AmountUnit): WalletRequest {
  return { op: call.op, transactionId: call.transactionId, call, unit, text: buildBody(call, unit) };
}

function wireCall(op: Operation, bet: Bet, cents: number, extra: CallExtra = {}, token?: string): WireCall {
  return {
    op, transactionId: randomUUID(), betId: bet.betId, userId: bet.userId, bonusFlag: bet.bonusFlag,
    amount: normalizeAmount(BigInt(cents)), extra, ...(token === undefined ? {} : { token }),
  };
}

/** The same transaction (same transactionId) with another amount: a reuse the wallet must refuse. */
export function withAmount(req: WalletRequest, cents: number): WalletRequest {
  return request({ ...req.call, amount: normalizeAmount(BigInt(cents)) }, req.unit);
}

/**
 * The call with unknown fields: `top` added at the top level of the body, `extra` replacing the
 * per-operation fields (metadata, betMetadata) by copies that carry unknown fields of their own.
 */
export function withUnknownFields(req: WalletRequest, top: Record<string, unknown>, extra: CallExtra = req.call.extra): WalletRequest {
  const base = request({ ...req.call, extra }, req.unit);
  return { ...base, text: `${base.text.slice(0, -1)},${JSON.stringify(top).slice(1)}` };
}

export function reserveBody(bet: Bet, cents: number, unit: AmountUnit) {
  const metadata = { userId: bet.userId, brandName: 'wallet-check', brandUserId: bet.userId, data: '{}' };
  return request(wireCall('reserve', bet, cents, { metadata }, `wallet-check-${randomUUID()}`), unit);
}

/** betMetadata of spec 2.5 for a one-leg win bet; ids and values are plausible, not meaningful. */
export function betMetadata(bet: Bet, cents: number, unit: AmountUnit): BetMetadata {
  return {
    id: bet.betId,
    ticketId: randomUUID(),
    tenantId: randomUUID(),
    userId: bet.userId,
    betTypeId: 1,
    statusId: 1,
    createdAt: new Date().toISOString(),
    amount: wireAmount(cents, unit),
    fixedOdds: 3.5,
    percentage: 100,
    legs: [{
      betTypeId: 1,
      eventId: randomUUID(),
      productKeyword: 'WIN',
      processedDividend: 0,
      legType: 'racing',
      marketId: null,
      selection: [{ statusId: 1, fixedOdds: 3.5, margin: 0, position: 1, selectionId: [randomUUID()], lineTypeId: 0, line: 0 }],
    }],
  };
}

export function confirmBody(bet: Bet, cents: number, unit: AmountUnit) {
  return request(wireCall('confirm', bet, cents, { betMetadata: betMetadata(bet, cents, unit) }), unit);
}

export function refundBetBody(bet: Bet, cents: number, unit: AmountUnit) {
  return request(wireCall('refundBet', bet, cents), unit);
}

export function settleBetBody(bet: Bet, cents: number, unit: AmountUnit) {
  return request(wireCall('settleBet', bet, cents), unit);
}

export const DEBIT_TYPES = TRANSACTION_TYPES.debit;
export const CREDIT_TYPES = TRANSACTION_TYPES.credit;

export function debitBody(bet: Bet, cents: number, unit: AmountUnit, transactionType: (typeof DEBIT_TYPES)[number]) {
  return request(wireCall('debit', bet, cents, { transactionType }), unit);
}

export function creditBody(bet: Bet, cents: number, unit: AmountUnit, transactionType: (typeof CREDIT_TYPES)[number]) {
  return request(wireCall('credit', bet, cents, { transactionType }), unit);
}
