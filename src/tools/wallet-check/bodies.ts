// Request bodies of spec 2.4 and 2.5, built by the checker itself (fresh UUIDs per transaction).
// Amounts are integer cents here and converted to the wallet's wire unit at the edge.
import { randomUUID } from 'node:crypto';
import { centsOnWire, type AmountUnit } from '../../racing/money.ts';
import type { BetMetadata } from '../../wallet-protocol/bet-metadata.ts';

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

function common(bet: Bet, cents: number, unit: AmountUnit) {
  return { transactionId: randomUUID(), betId: bet.betId, userId: bet.userId, bonusFlag: bet.bonusFlag, amount: wireAmount(cents, unit) };
}

export function reserveBody(bet: Bet, cents: number, unit: AmountUnit) {
  return {
    ...common(bet, cents, unit),
    token: `wallet-check-${randomUUID()}`,
    metadata: { userId: bet.userId, brandName: 'wallet-check', brandUserId: bet.userId, data: '{}' },
  };
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
  return { ...common(bet, cents, unit), betMetadata: betMetadata(bet, cents, unit) };
}

export function refundBetBody(bet: Bet, cents: number, unit: AmountUnit) {
  return common(bet, cents, unit);
}

export function settleBetBody(bet: Bet, cents: number, unit: AmountUnit) {
  return common(bet, cents, unit);
}

export const DEBIT_TYPES = ['deductbetwin', 'betwincancelled'] as const;
export const CREDIT_TYPES = ['adjustreversetransaction', 'cashout', 'betpartialrefund'] as const;

export function debitBody(bet: Bet, cents: number, unit: AmountUnit, transactionType: (typeof DEBIT_TYPES)[number]) {
  return { ...common(bet, cents, unit), transactionType };
}

export function creditBody(bet: Bet, cents: number, unit: AmountUnit, transactionType: (typeof CREDIT_TYPES)[number]) {
  return { ...common(bet, cents, unit), transactionType };
}
