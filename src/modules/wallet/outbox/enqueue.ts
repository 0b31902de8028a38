// The one writer of the wallet outbox. A state change and the wallet call it causes are written in
// the caller's transaction (spec 3: confirm, refundBet, settleBet, debit, credit), so the call
// exists exactly when the change committed; the delivery worker sends it afterwards.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../../db/pool.ts';
import { AppError } from '../../../errors.ts';
import { normalizeAmount } from '../../../wallet-protocol/amounts.ts';
import { DURABLE_OPERATIONS, requireUuid, validateExtra, type CallExtra, type DurableOperation, type Operation } from '../../../wallet-protocol/operations.ts';
import type { BetMetadata } from '../../../wallet-protocol/bet-metadata.ts';
import { insertCall, releasePlacementGuard, reserveStatus, type AttemptRecord, type CallResult } from './outbox.queries.ts';
import { recordReservesAndQueueNext } from './placement.queries.ts';
import { leasedRow, type AttemptSends, type DirectLease } from '../delivery/direct-send.ts';

export interface WalletCallInput {
  tenantId: string;
  betId: string;
  userId: string;
  op: DurableOperation;
  /** Decimal dollars with at most two decimals ("12.50"), or integer cents as a bigint. */
  amount: string | bigint;
  bonusFlag: boolean;
  /** debit: deductbetwin | betwincancelled; credit: adjustreversetransaction | cashout | betpartialrefund. */
  transactionType?: string;
  /** confirm: the bet metadata of spec 2.5 (id must be betId; checked by validateBetMetadata). */
  betMetadata?: BetMetadata;
}

export interface EnqueuedCall {
  transactionId: string;
  betId: string;
  seq: number;
  op: Operation;
}

export interface OutboxRow {
  tenantId: string;
  transactionId: string;
  betId: string;
  userId: string;
  op: Operation;
  amount: string;
  bonusFlag: boolean;
  extra: CallExtra;
  secretEnc?: string | null;
  onlyIfReserved?: boolean;
  /** The placement guard of a successful reserve (docs/wallet-delivery.md, Reserve). */
  placementGuard?: boolean;
  now: Date;
  /** When it may first be sent (default: now). */
  dueAt?: Date;
  /** Set by the synchronous reserve: the row starts leased to the caller that sends it. */
  lease?: { owner: string; until: Date };
}

/** Inserts one outbox row with the next sequence number of its bet. Internal to the module. */
export async function writeOutboxRow(tx: Queryable, row: OutboxRow): Promise<EnqueuedCall> {
  const inserted = await insertCall(tx, {
    tenant_id: row.tenantId,
    transaction_id: row.transactionId,
    bet_id: row.betId,
    user_id: row.userId,
    op: row.op,
    amount: row.amount,
    bonus_flag: row.bonusFlag,
    extra: row.extra as Record<string, unknown>,
    secret_enc: row.secretEnc ?? null,
    only_if_reserved: row.onlyIfReserved ?? false,
    placement_guard: row.placementGuard ?? false,
    due_at: row.dueAt ?? null,
    status: row.lease ? 'sending' : 'pending',
    now: row.now,
    lease_until: row.lease?.until ?? null,
    lease_owner: row.lease?.owner ?? null,
  });
  if (!inserted) throw notConfigured(row.tenantId);
  return { transactionId: row.transactionId, betId: row.betId, seq: inserted.seq, op: row.op };
}

/**
 * Queues a wallet call in the caller's open transaction `tx`. The call gets a new transactionId
 * (sent unchanged on every retry) and the next place in its bet's sequence: the worker delivers a
 * bet's calls one at a time in this order. Nothing is sent before `tx` commits, and nothing at all
 * if it rolls back.
 */
export async function enqueueWalletCall(tx: Queryable, input: WalletCallInput, options: { clock?: () => Date } = {}): Promise<EnqueuedCall> {
  const call = durableCall(input, (options.clock ?? (() => new Date()))());
  if (call.op === 'refundBet') {
    const reserve = await reserveStatus(tx, call.tenantId, call.betId);
    if (reserve !== 'delivered') throw noReservation(call.betId, reserve);
  }
  // The bet's next call after a successful reserve releases its placement guard; once the guard
  // has gone out, the reservation is being released and the bet cannot be taken.
  if (await releasePlacementGuard(tx, call.tenantId, call.betId, call.now) === 'fired') throw reservationReleased(call.betId);
  return writeOutboxRow(tx, call);
}

/** A reserve whose success is recorded in the caller's transaction (delivery/reserve.ts). */
export interface RecordedReserve {
  tenantId: string;
  betId: string;
  userId: string;
  amount: string;
  bonusFlag: boolean;
  result: CallResult & { status: 'delivered' };
  attempts: AttemptRecord[];
}

/**
 * Records reserves' successes and queues each bet's next call (inputs[i] after reserves[i]) behind
 * its reserve, in one statement of the caller's transaction. Neither of enqueueWalletCall's reads
 * is needed: each reserve is delivered as of this statement, and its placement guard is written
 * here, already released, with the call. An entry is undefined when its sender's lease of the
 * reserve was lost: then only its attempts are recorded. With `sends` (delivery/direct-send.ts)
 * whose sender has room, the next calls are written leased to it, and registered there to be sent
 * once the caller's transaction commits.
 */
export async function recordAndEnqueueNext(tx: Queryable, reserves: RecordedReserve[], inputs: WalletCallInput[], now: Date,
  sends?: AttemptSends): Promise<Array<EnqueuedCall | undefined>> {
  if (inputs.length !== reserves.length) throw new AppError('bad_request', `${reserves.length} reserves need ${reserves.length} calls after them, got ${inputs.length}`);
  const calls = inputs.map((input, i) => {
    const reserve = reserves[i]!;
    if (input.tenantId !== reserve.tenantId || input.betId !== reserve.betId) {
      throw new AppError('bad_request', `the call after the reserve of bet ${reserve.betId} must be for that bet`);
    }
    return durableCall(input, now);
  });
  const leases = leasesByTenant(calls, sends);
  const moved = await recordReservesAndQueueNext(tx, calls.map((call, i) => ({
    reserve: reserves[i]!.result, attempts: reserves[i]!.attempts, bet_id: call.betId, user_id: call.userId,
    guard_transaction_id: randomUUID(), reserve_amount: reserves[i]!.amount, reserve_bonus_flag: reserves[i]!.bonusFlag,
    transaction_id: call.transactionId, op: call.op, amount: call.amount, bonus_flag: call.bonusFlag,
    extra: call.extra as Record<string, unknown>, now,
    lease_owner: leases.get(call.tenantId)?.owner ?? null, lease_until: leases.get(call.tenantId)?.until ?? null,
    lease_config_version: leases.get(call.tenantId)?.configVersion ?? null,
  })));
  return moved.map(({ recorded, seq, amount_unit: unit, status }, i) => {
    if (!recorded) return undefined;
    const call = calls[i]!;
    if (seq === null || unit === null) throw notConfigured(call.tenantId); // rolls the records back: a reserve must not stay unanswered
    const lease = leases.get(call.tenantId);
    // Written `pending` instead when the sender's configuration was changed meanwhile: the workers claim it.
    if (lease && status === 'sending') sends!.written(lease, leasedRow({ ...call, extra: call.extra as Record<string, unknown> }, seq, unit, lease));
    return { transactionId: call.transactionId, betId: call.betId, seq, op: call.op };
  });
}

/** One lease per tenant, for all of that tenant's calls, where the sender has room for them. */
function leasesByTenant(calls: DurableCall[], sends?: AttemptSends): Map<string, DirectLease> {
  const leases = new Map<string, DirectLease>();
  if (!sends) return leases;
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c.tenantId, (counts.get(c.tenantId) ?? 0) + 1);
  for (const [tenantId, count] of counts) {
    const lease = sends.lease(tenantId, count);
    if (lease) leases.set(tenantId, lease);
  }
  return leases;
}

export type DurableCall = OutboxRow & { op: DurableOperation };

/** Checks a call's fields (spec 2.4, 2.5) and gives it its transactionId: what both enqueues write. */
export function durableCall(input: WalletCallInput, now: Date): DurableCall {
  if (!(DURABLE_OPERATIONS as readonly string[]).includes(input.op)) {
    throw new AppError('bad_request', `op must be one of ${DURABLE_OPERATIONS.join(', ')} (reserve is sent synchronously), got ${JSON.stringify(input.op)}`);
  }
  if (typeof input.bonusFlag !== 'boolean') throw new AppError('bad_request', 'bonusFlag must be a boolean');
  const tenantId = requireUuid(input.tenantId, 'tenantId');
  const betId = requireUuid(input.betId, 'betId');
  return {
    tenantId,
    transactionId: randomUUID(),
    betId,
    userId: requireUuid(input.userId, 'userId'),
    op: input.op,
    amount: normalizeAmount(input.amount),
    bonusFlag: input.bonusFlag,
    extra: validateExtra(input.op, { ...input, betId }),
    now,
  };
}

export const notConfigured = (tenantId: string) =>
  new AppError('wallet_not_configured', `tenant "${tenantId}" has no wallet configured (wagerline tenant set-wallet)`);

/**
 * spec 3: refundBet only after a successful reservation. Placement takes a bet only when its
 * reserve answered 'reserved', so a refund of any other bet is a caller's mistake.
 */
export const noReservation = (betId: string, reserve: string | null | undefined) =>
  new AppError('wallet_no_reservation', `refundBet of bet ${betId}: ${reserve ? `its reserve is ${reserve}, not delivered` : 'the bet has no reserve'} (refundBet only after a successful reservation: docs/wallet-delivery.md)`);

export const reservationReleased = (betId: string) =>
  new AppError('wallet_reservation_released', `bet ${betId}: its reservation was released (refundBet) because no call followed the reserve within the placement window; the bet cannot be taken`);
