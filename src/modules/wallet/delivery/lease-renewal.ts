// The leases of the calls a worker is sending (worker.ts), extended while they are in flight.
import type { Pool } from '../../../db/pool.ts';
import * as oq from '../outbox/outbox.queries.ts';

/** A call this process is sending: its lease as last confirmed, and how to abandon it. */
export type Sending = { tenant_id: string; transaction_id: string; owner: string; leaseUntil: number; stop: AbortController };

export interface LeaseRenewal {
  db: Pool;
  clock: () => Date;
  leaseMs: number;
  renewEveryMs: number;
  /** The calls in flight, by "tenant/transaction". */
  inFlight: Map<string, Sending>;
  onError: (error: unknown) => void;
}

/**
 * Extends the leases of the calls in flight. A call whose lease was taken over, or could run out
 * before the next renewal (the database did not answer the last ones), is abandoned at once:
 * past its lease another process may claim it, and a call must never be in flight twice.
 */
export function renewLeases({ db, clock, leaseMs, renewEveryMs, inFlight, onError }: LeaseRenewal): void {
  const now = clock().getTime();
  const keep: Sending[] = [];
  for (const s of inFlight.values()) {
    if (s.leaseUntil - now <= renewEveryMs) s.stop.abort('lease about to run out: it could not be renewed');
    else keep.push(s);
  }
  if (!keep.length) return;
  const until = now + leaseMs;
  void oq.renewLeases(db, keep, new Date(until)).then((renewed) => {
    for (const s of keep) {
      if (renewed.has(`${s.tenant_id}/${s.transaction_id}/${s.owner}`)) s.leaseUntil = until;
      else if (inFlight.get(`${s.tenant_id}/${s.transaction_id}`) === s) s.stop.abort('lease lost: another sender took the call over');
    }
  }).catch(onError);
}
