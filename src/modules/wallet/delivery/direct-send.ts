// A placement's next call (its confirm, or the refundBet of the whole stake) is sent by the process
// that placed the bet, as soon as the transaction that queues it commits, instead of waiting for a
// worker to claim it. The transaction writes the call already `sending`, leased to this process's
// worker, which then sends, renews and records it exactly as it does a call it claimed. Should the
// process die before recording it, the lease runs out and any worker's next claim sends it again
// (an `interrupted` attempt on record), as after a crash in the middle of a claimed call.
// Skipping the claim saves its statement (a fifth of PostgreSQL's time a placement:
// docs/performance.md). With no worker running in the process, or none of the wallet's slots free
// in it, the call is written `pending` and the workers claim it as before.
import type { CallRow } from '../outbox/outbox.queries.ts';
import type { TenantState } from './tenant-endpoints.ts';

/** Calls written under this lease are sent by `send` once their transaction has committed. */
export interface DirectLease {
  owner: string;
  until: Date;
  send(rows: CallRow[]): void;
}

export interface DirectSender {
  /** A lease for `count` calls of the tenant's wallet, or undefined: write them `pending`. */
  lease(tenantId: string, count: number): DirectLease | undefined;
}

/** What a worker lends its sender: its tenants (undefined unless running), lease owners, and start(). */
interface WorkerParts {
  usable(tenantId: string): TenantState | undefined;
  owner(): string;
  start(state: TenantState, row: CallRow, owner: string, leaseUntil: number): void;
  stopped(): boolean;
  clock: () => Date;
  leaseMs: number;
  renewEveryMs: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/**
 * A worker as a sender: a lease only while it runs and has `count` of the wallet's slots free in
 * this process; the calls are then sent as if claimed under that lease.
 */
export function leasingSender(w: WorkerParts): DirectSender {
  return {
    lease(tenantId, count) {
      const state = w.usable(tenantId);
      if (!state || state.inflight + count > state.endpoint.concurrency) return undefined;
      const owner = w.owner();
      const until = w.clock().getTime() + w.leaseMs;
      return {
        owner,
        until: new Date(until),
        send: (rows) => {
          // As for a claim answered late: too little of the lease left to send safely, or stopped
          // meanwhile. The calls wait for their lease to run out and go to the next claim.
          if (w.stopped() || until - w.clock().getTime() <= w.renewEveryMs) {
            w.log('calls written for this process left to their leases', { tenant: tenantId, calls: rows.length });
            return;
          }
          for (const row of rows) w.start(state, row, owner, until);
        },
      };
    },
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
