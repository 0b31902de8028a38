// The transaction that records a successful reserve — and, with the caller's `take` step, takes
// the bet and queues its next call in the same statements. Reserves answered while such a
// transaction runs wait for it and are then recorded and taken together, in one transaction with
// one statement per step for all of them: each statement's cost (a round trip, a wake-up of the
// database and of this process, a commit) is paid once per group instead of once per bet, which is
// what a placement's throughput is bound by (docs/performance-bets-2026-11-25.md). A group that
// fails in any way (a lease lost, a bet no longer pending, a lock waited for too long, any error)
// is rolled back and each of its bets is recorded alone, as if it had never been grouped — unless
// the caller's take says the failure is every bet's own (EveryMemberFails): then each fails with it
// at once.
// The group is only ever committed when every bet in it went through as it would alone.
import { AppError } from '../../../errors.ts';
import type { Pool, TransactionOptions, Tx } from '../../../db/pool.ts';
import { grouped, nameOf, type Alone } from '../../../db/grouped.ts';
import { recordAndEnqueueNext, type EnqueuedCall, type RecordedReserve, type WalletCallInput } from '../outbox/enqueue.ts';
import * as oq from '../outbox/outbox.queries.ts';
import type { WalletMetrics } from './metrics.ts';
import { queueConditionalRefund, type CallFacts } from './reserve-release.ts';
import { withSends, type AttemptSends, type DirectSender } from './direct-send.ts';

/**
 * A caller's take step, the same object for every reserve of that caller, so that reserves
 * answered together are taken together: `take` takes the bets of `contexts` in `tx` and calls
 * `queueNext` once, with each bet's next call (confirm, or refundBet of the whole) in order.
 */
export interface TakeGroup<C, T> {
  take(tx: Tx, contexts: C[], queueNext: (calls: WalletCallInput[]) => Promise<EnqueuedCall[]>): Promise<T[]>;
}

/** A reserve answered with success, and what the caller's take knows of its bet. */
export interface Reserved<C> {
  reserve: RecordedReserve & CallFacts;
  context: C;
}

/** The sender's lease of the reserve was lost before its success was recorded: the rescue owns it. */
export class LeaseLost extends Error {}

/**
 * Thrown by a TakeGroup when its failure would be every member's alone too (the races they all
 * bet on stayed locked): each member fails at once with `cause`, none is retried alone.
 */
export class EveryMemberFails extends Error {
  constructor(override readonly cause: unknown) {
    super(`every bet of the group fails: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Most reserves recorded by one transaction. */
const MAX_GROUP = 64;

export function createReserveTaker(options: { db: Pool; clock: () => Date; placementWindowMs: number; metrics?: WalletMetrics; sender?: DirectSender }) {
  const { db, clock, metrics, sender } = options;
  type Moved = { taken: unknown } | undefined;
  // Keyed by the caller's group and the reserve's lane; every placement of a caller waits for locks
  // as long (its first's `tx` is used).
  const run = grouped<string, { group: TakeGroup<unknown, unknown>; member: Reserved<unknown>; tx: TransactionOptions }, Moved>({
    max: MAX_GROUP,
    together: async (_, items) => {
      const recorded = await recordCommitted(items.map((i) => i.member), clock(), items[0]!.group, items[0]!.tx);
      return recorded && items.map((_i, i) => ({ taken: recorded.taken[i] }));
    },
    onGroup: (_, size, together) => metrics?.takes.inc({ how: together ? 'together' : 'alone' }, size),
  });

  /**
   * Records the reserves' successes in `tx`. With a take group, the records are written by the
   * statement that queues the bets' next calls. Without one (a single reserve), the placement guard
   * is queued: released when placement queues that call in time and sent otherwise, so a placement
   * that dies now leaves no user money held (docs/wallet-delivery.md). Undefined, or LeaseLost thrown once
   * `take` has run, when a lease was lost. Next calls written leased to this process's worker are
   * registered in `sends`, to be sent once `tx` has committed (direct-send.ts).
   */
  async function record<C, T>(tx: Tx, members: Array<Reserved<C>>, end: Date, group: TakeGroup<C, T> | undefined,
    sends: AttemptSends): Promise<{ taken: T[] } | undefined> {
    let queued = false;
    const taken = await group?.take(tx, members.map((m) => m.context), async (calls) => {
      if (queued) throw new AppError('bad_request', 'only one call is queued after each reserve, in the transaction that records it');
      queued = true;
      const enqueued = await recordAndEnqueueNext(tx, members.map((m) => m.reserve), calls, clock(), sends);
      if (enqueued.some((e) => e === undefined)) throw new LeaseLost();
      return enqueued as EnqueuedCall[];
    });
    if (queued) return { taken: taken! };
    for (const { reserve } of members) {
      const rows = await oq.complete(tx, [reserve.result], reserve.attempts);
      if (!rows.length) {
        if (group) throw new LeaseLost(); // roll back what `take` wrote
        return undefined;
      }
      await queueConditionalRefund(tx, reserve, end, new Date(end.getTime() + options.placementWindowMs));
    }
    return { taken: taken ?? [] };
  }

  /** record() in a transaction of its own; what it wrote for this process to send goes out once that commits. */
  function recordCommitted<C, T>(members: Array<Reserved<C>>, end: Date, group: TakeGroup<C, T> | undefined,
    tx: TransactionOptions): Promise<{ taken: T[] } | undefined> {
    return withSends(db, sender, (t, sends) => record(t, members, end, group, sends), tx);
  }

  return {
    recordCommitted,
    /**
     * Records the reserve and takes its bet, together with the others of `group` and `lane`
     * answered meanwhile; `alone` records it in a transaction of its own (and handles that one's
     * failure): used for a group of one, and for each bet of a group that failed (with its error).
     */
    together<C, T>(take: { group: TakeGroup<C, T>; lane?: string }, member: Reserved<C>, tx: TransactionOptions,
      alone: Alone<{ taken: T | undefined } | undefined>): Promise<{ taken: T | undefined } | undefined> {
      const item = { group: take.group as TakeGroup<unknown, unknown>, member: member as Reserved<unknown>, tx };
      return run(`${nameOf(take.group)}|${take.lane ?? ''}`, item, alone) as Promise<{ taken: T | undefined } | undefined>;
    },
  };
}
