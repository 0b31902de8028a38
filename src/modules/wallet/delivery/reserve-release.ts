// Releasing a reservation nobody will take (spec 3: refundBet only after a successful reserve):
// the conditional refundBet queued behind a reserve whose outcome is unknown or whose placement
// failed, and the rescue of reserves whose sender died mid-call.
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../../crypto/secret-box.ts';
import { withTransaction, type Pool, type Tx } from '../../../db/pool.ts';
import { writeOutboxRow } from '../outbox/enqueue.ts';
import * as oq from '../outbox/outbox.queries.ts';
import { laterCalls, type AttemptRecord, type CallResult, type CallRow } from '../outbox/outbox.queries.ts';
import { deliverRequeuedReserve, lockReserveRow } from '../outbox/placement.queries.ts';

/**
 * Thrown by reserve when the wallet reserved but the `take` step failed: the bet was not taken and
 * its stake is being returned (`refundQueued`; false when the rescue will return it instead).
 * `cause` is the step's own error.
 */
export class TakeFailed extends Error {
  constructor(cause: unknown, readonly refundQueued: boolean) {
    super(`the bet was not taken after its reserve: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** What the conditional refund copies from its reserve. */
export interface CallFacts {
  tenantId: string;
  betId: string;
  userId: string;
  amount: string;
  bonusFlag: boolean;
  seq: number;
}

/** A refundBet sent only if the reserve succeeded; with `guardUntil`, the placement guard due then. */
export async function queueConditionalRefund(tx: Tx, call: CallFacts, now: Date, guardUntil?: Date): Promise<void> {
  const later = await laterCalls(tx, call.tenantId, call.betId, call.seq);
  if (later.length) return; // the bet already has follow-up calls: placement took it after all
  await writeOutboxRow(tx, {
    tenantId: call.tenantId,
    transactionId: randomUUID(),
    betId: call.betId,
    userId: call.userId,
    op: 'refundBet',
    amount: call.amount,
    bonusFlag: call.bonusFlag,
    extra: {},
    onlyIfReserved: true,
    now,
    ...(guardUntil && { placementGuard: true, dueAt: guardUntil }),
  });
}

/**
 * A reserve whose sender died mid-call (its lease ran out while still 'sending'): nobody took the
 * bet, so ask the wallet again in the background and queue the conditional refund behind it.
 */
export async function rescueOrphanedReserves(deps: { db: Pool; box: SecretBox; clock: () => Date; leaseMs: number }): Promise<number> {
  const now = deps.clock();
  return withTransaction(deps.db, async (tx) => {
    const orphans: CallRow[] = await oq.lockOrphanedReserves(tx, now, 100);
    for (const row of orphans) {
      await oq.requeueReserve(tx, row.tenant_id, row.transaction_id, now);
      await queueConditionalRefund(tx, {
        tenantId: row.tenant_id, betId: row.bet_id, userId: row.user_id, amount: row.amount, bonusFlag: row.bonus_flag, seq: row.seq,
      }, now);
    }
    return orphans.length;
  });
}

/**
 * The wallet reserved, but the transaction that was to take the bet failed (a lock waited for too
 * long, a bet no longer pending, the database): its record of the success rolled back with it.
 * Records the success now and queues the refundBet due at once, so the stake goes back without
 * asking the wallet again; true then. False when the reserve is no longer this sender's: it was
 * recorded after all (a commit whose answer was lost: the bet was taken, nothing is written again)
 * or the rescue took it over (it queued its own refund; this sender's asks join the log, and a
 * reserve still waiting for the worker's ask gets the success heard here, as after a lost lease).
 */
export async function releaseAfterFailedTake(db: Pool, reserve: CallFacts & { result: CallResult; attempts: AttemptRecord[] }, now: Date): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    const row = await lockReserveRow(tx, reserve.tenantId, reserve.result.transaction_id);
    if (row?.status === 'sending' && row.lease_owner === reserve.result.owner) {
      await oq.complete(tx, [reserve.result], reserve.attempts);
      await queueConditionalRefund(tx, reserve, now);
      return true;
    }
    if (row && row.status !== 'delivered') await oq.complete(tx, [], reserve.attempts);
    // Requeued by the rescue and not yet asked again: the success heard here is recorded on it.
    if (row?.status === 'pending') await deliverRequeuedReserve(tx, reserve.result);
    return false;
  });
}
