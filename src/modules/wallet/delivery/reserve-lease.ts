// The lease a synchronous reserve holds on its outbox row while it asks the wallet (reserve.ts).
import type { Pool } from '../../../db/pool.ts';
import * as oq from '../outbox/outbox.queries.ts';

/**
 * Holds the lease of the reserve row while placement asks the wallet: renewed every third of the
 * lease, so a crash is noticed (and the reserve rescued) within one lease however long the asks
 * take. `stop` fires when the lease is lost or could run out before the next renewal: from then
 * on the rescue owns the call, and this caller must not send it again.
 */
export function holdLease(db: Pool, key: { tenant_id: string; transaction_id: string; owner: string }, until: Date, leaseMs: number, clock: () => Date) {
  const stop = new AbortController();
  const every = Math.max(200, Math.floor(leaseMs / 3));
  let leaseUntil = until.getTime();
  // Written so late that the lease could run out before the first renewal (a stalled database):
  // not sent at all, the rescue asks once the lease has ended.
  if (leaseUntil - clock().getTime() <= every) stop.abort('lease about to run out before the reserve was sent');
  const timer = setInterval(() => {
    const now = clock().getTime();
    if (leaseUntil - now <= every) return stop.abort('lease about to run out: it could not be renewed');
    const until = now + leaseMs;
    oq.renewLeases(db, [key], new Date(until)).then((renewed) => {
      if (renewed.size) leaseUntil = until;
      else stop.abort('lease lost: the reserve was taken over by the rescue');
    }, () => undefined); // a failed renewal shows up as a lease about to run out
  }, every);
  return { signal: stop.signal, release: () => clearInterval(timer) };
}
