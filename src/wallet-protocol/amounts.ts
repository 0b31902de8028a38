// Wallet amounts (spec 2.4: "Unit of wallet amounts: not shown"). Amounts travel through the code
// as decimal strings of dollars with at most two decimals, are stored as NUMERIC(16,2), and are
// written on the wire either as dollars with exactly two decimals (12.50) or as integer cents
// (1250), per tenant. No float ever holds an amount: conversion is string arithmetic on digits.
import { AppError } from '../errors.ts';

export type AmountUnit = 'dollars' | 'cents';
export const AMOUNT_UNITS: readonly AmountUnit[] = ['dollars', 'cents'];

const DECIMAL = /^(\d{1,14})(?:\.(\d{1,2}))?$/;

/** "12.5" → "12.50"; refuses negatives, more than two decimals, exponents and floats. */
export function normalizeAmount(amount: string | bigint, where = 'amount'): string {
  if (typeof amount === 'bigint') {
    if (amount < 0n) throw new AppError('bad_request', `${where} must not be negative`);
    return centsToDollars(amount);
  }
  const match = typeof amount === 'string' ? DECIMAL.exec(amount.trim()) : null;
  if (!match) {
    throw new AppError('bad_request', `${where} must be a decimal string of dollars with at most two decimals (e.g. "12.50"), got ${JSON.stringify(amount)}`);
  }
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  return `${whole}.${(match[2] ?? '').padEnd(2, '0')}`;
}

export function dollarsToCents(dollars: string): bigint {
  const [whole, frac] = normalizeAmount(dollars).split('.') as [string, string];
  return BigInt(whole) * 100n + BigInt(frac);
}

export function centsToDollars(cents: bigint): string {
  const whole = cents / 100n;
  const frac = (cents % 100n).toString().padStart(2, '0');
  return `${whole}.${frac}`;
}

/** The JSON number text of an amount in the tenant's unit: "12.50" or "1250". */
export function amountOnWire(dollars: string, unit: AmountUnit): string {
  return unit === 'cents' ? dollarsToCents(dollars).toString() : normalizeAmount(dollars);
}
