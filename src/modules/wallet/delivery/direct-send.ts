// A placement's next call (its confirm, or the refundBet of the whole stake) is sent by the process
// that placed the bet, as soon as the transaction that queues it commits, instead of waiting for a
// worker to claim it. The transaction writes the call already `sending`, leased to this process's
// worker, which then sends, renews and records it exactly as it does a call it claimed. Should the
// process die before recording it, the lease runs out and any worker's next claim sends it again
// (an `interrupted` attempt on record), as after a crash in the middle of a claimed call.
// Skipping the claim saves its statement (a fifth of PostgreSQL's time a placement:
// docs/performance-bets-2026-11-25.md). With no worker running in the process, or none of the
// wallet's slots free in it, the call is written `pending` and the workers claim it as before.
import { withTransaction, type Pool, type TransactionOptions, type Tx } from '../../../db/pool.ts';
import type { CallRow } from '../outbox/outbox.queries.ts';
import type { TenantState } from './tenant-endpoints.ts';

/**
 * Calls written under this lease: `send` starts them once their transaction has committed,
 * `release` gives the lease's slots back when it did not. Exactly one of the two is called.
 */
export interface DirectLease {
  owner: string;
  until: Date;
  /** The wallet configuration the calls will be sent with (WalletEndpoint.version). */
  configVersion: string;
  send(rows: CallRow[]): void;
  release(): void;
}

export interface DirectSender {
  /** A lease for `count` calls of the tenant's wallet, holding that many of its slots, or undefined: write them `pending`. */
  lease(tenantId: string, count: number): DirectLease | undefined;
}

/** The leases one attempt of a transaction took, and the rows written under each. */
export class AttemptSends {
  private readonly taken: Array<{ lease: DirectLease; rows: CallRow[] }> = [];
  constructor(private readonly sender: DirectSender | undefined) {}

  lease(tenantId: string, count: number): DirectLease | undefined {
    const lease = this.sender?.lease(tenantId, count);
    if (lease) this.taken.push({ lease, rows: [] });
    return lease;
  }

  written(lease: DirectLease, row: CallRow): void {
    this.taken.find((t) => t.lease === lease)?.rows.push(row);
  }

  committed(): void {
    for (const { lease, rows } of this.taken.splice(0)) lease.send(rows);
  }

  released(): void {
    for (const { lease } of this.taken.splice(0)) lease.release();
  }
}

/**
 * Runs `fn` in a transaction whose calls written under a lease are sent once it commits. Each
 * attempt (withTransaction retries conflicts) gets leases of its own; an attempt's are released
 * when another attempt starts or the transaction fails, so only rows that committed are ever sent.
 */
export async function withSends<T>(db: Pool, sender: DirectSender | undefined, fn: (tx: Tx, sends: AttemptSends) => Promise<T>,
  options: TransactionOptions): Promise<T> {
  let sends: AttemptSends | undefined;
  let result: T;
  try {
    result = await withTransaction(db, (tx) => {
      sends?.released();
      sends = new AttemptSends(sender);
      return fn(tx, sends);
    }, options);
  } catch (error) {
    sends?.released();
    throw error;
  }
  sends?.committed();
  return result;
}

/** What a worker lends its sender: its tenants (undefined unless running), lease owners, and start(). */
interface WorkerParts {
  usable(tenantId: string): TenantState | undefined;
  owner(): string;
  start(state: TenantState, row: CallRow, owner: string, leaseUntil: number, claimsBefore: number): void;
  stopped(): boolean;
  clock: () => Date;
  leaseMs: number;
  renewEveryMs: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * A worker as a sender: a lease only while it runs and has `count` of the wallet's slots free in
 * this process, which the lease holds until its calls start (or it is released); the calls are
 * then sent as if claimed under that lease.
 */
export function leasingSender(w: WorkerParts): DirectSender {
  return {
    lease(tenantId, count) {
      const state = w.usable(tenantId);
      if (!state || state.inflight + count > state.endpoint.concurrency) return undefined;
      state.inflight += count;
      const claimsBefore = state.claims;
      let held = true;
      const giveBack = () => {
        if (held) state.inflight -= count;
        held = false;
      };
      const owner = w.owner();
      const until = w.clock().getTime() + w.leaseMs;
      return {
        owner,
        until: new Date(until),
        configVersion: state.endpoint.version,
        release: giveBack,
        send: (rows) => {
          if (!held) return;
          giveBack();
          // As for a claim answered late: too little of the lease left to send safely, or stopped
          // meanwhile. The calls wait for their lease to run out and go to the next claim.
          if (w.stopped() || until - w.clock().getTime() <= w.renewEveryMs) {
            w.log('calls written for this process left to their leases', { tenant: tenantId, calls: rows.length });
            return;
          }
          try {
            for (const row of rows) w.start(state, row, owner, until, claimsBefore);
          } catch (error) {
            w.log('calls written for this process could not be started: left to their leases', { tenant: tenantId, err: String(error) });
          }
        },
      };
    },
  };
}

/** The outbox row of a call just written under a lease, as the worker sends it. */
export function leasedRow(call: {
  tenantId: string; transactionId: string; betId: string; userId: string; op: string; amount: string; bonusFlag: boolean;
  extra: Record<string, unknown>; now: Date;
}, seq: number, amountUnit: 'dollars' | 'cents', lease: DirectLease): CallRow {
  return {
    tenant_id: call.tenantId, transaction_id: call.transactionId, bet_id: call.betId, seq, user_id: call.userId, op: call.op,
    amount: call.amount, amount_unit: amountUnit, bonus_flag: call.bonusFlag, extra: call.extra, secret_enc: null,
    only_if_reserved: false, placement_guard: false, status: 'sending', failures: 0, attempts: 0, next_attempt_at: call.now,
    lease_until: lease.until, lease_owner: lease.owner, created_at: call.now, finished_at: null, last_http_status: null,
    last_code: null, last_error: null, note: null,
  };
}

/** The process's running worker, if any, as the sender of placements' next calls. */
export function directSenderSlot() {
  let current: DirectSender | undefined;
  return {
    sender: { lease: (tenantId: string, count: number) => current?.lease(tenantId, count) } satisfies DirectSender,
    /** While `sender` runs, placements' next calls go to it. */
    use(sender: DirectSender): void {
      current = sender;
    },
    release(sender: DirectSender): void {
      if (current === sender) current = undefined;
    },
  };
}
