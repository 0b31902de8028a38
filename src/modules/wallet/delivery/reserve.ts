// Reserve (spec 3, 8): sent at bet placement while the caller waits. The call is written to the
// outbox first, leased to this caller, so that a crash at any point leaves a row the worker can
// finish. When the outcome is unknown (timeout, network error, 5xx, a body that is not the
// spec's), the same transactionId is asked again up to WAGERLINE_WALLET_RESERVE_RETRIES times.
// If it stays unknown, the bet is NOT taken: the reserve goes on asking in the background and a
// refundBet is queued behind it that is sent only if the reserve turns out to have succeeded
// (spec 3: refundBet only after a successful reservation), so no user money stays held.
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../../crypto/secret-box.ts';
import { AppError } from '../../../errors.ts';
import { withTransaction, type Pool, type Tx } from '../../../db/pool.ts';
import { normalizeAmount } from '../../../wallet-protocol/amounts.ts';
import { buildBody, requireUuid, validateExtra, type ReserveMetadata } from '../../../wallet-protocol/operations.ts';
import type { Attempt, WalletHttp } from './http-client.ts';
import { loadEndpoint } from '../config/wallet-config.service.ts';
import type { WalletMetrics } from './metrics.ts';
import { writeOutboxRow } from '../outbox/enqueue.ts';
import * as oq from '../outbox/outbox.queries.ts';
import { attemptRecord } from './outcome.ts';
import { laterCalls, type CallRow } from '../outbox/outbox.queries.ts';

export interface ReserveInput {
  tenantId: string;
  betId: string;
  userId: string;
  /** Decimal dollars ("12.50") or integer cents as a bigint. */
  amount: string | bigint;
  bonusFlag: boolean;
  /** The token the user placed the bet with, forwarded for the operator to check (spec 2.4). */
  token: string;
  metadata: ReserveMetadata;
}

export type ReserveResult =
  /** The wallet holds the funds: take the bet, and queue confirm (or refundBet) in its transaction. */
  | { outcome: 'reserved'; transactionId: string }
  /** The wallet refused (a 4xx, e.g. insufficient funds or an invalid token), or was never reached: do not take the bet. */
  | { outcome: 'rejected'; transactionId: string; httpStatus: number | null; code?: string; message?: string }
  /** No certain answer: do not take the bet; a conditional refundBet is queued (see above). */
  | { outcome: 'unknown'; transactionId: string; error: string; refundQueued: true };

export interface ReserverOptions {
  db: Pool;
  box: SecretBox;
  http: WalletHttp;
  clock?: () => Date;
  /** Lease of the reserve row, renewed while asking; after a crash the rescue takes over within it. */
  leaseMs: number;
  retries: number;
  /** After a successful reserve, how long placement has to queue the bet's next call. */
  placementWindowMs: number;
  metrics?: WalletMetrics;
  /** Pause before asking again (real time; short, the caller is waiting). */
  backoffMs?: (attempt: number) => number;
}

/**
 * Holds the lease of the reserve row while placement asks the wallet: renewed every third of the
 * lease, so a crash is noticed (and the reserve rescued) within one lease however long the asks
 * take. `stop` fires when the lease is lost or could run out before the next renewal: from then
 * on the rescue owns the call, and this caller must not send it again.
 */
function holdLease(db: Pool, key: { tenant_id: string; transaction_id: string; owner: string }, until: Date, leaseMs: number, clock: () => Date) {
  const stop = new AbortController();
  const every = Math.max(200, Math.floor(leaseMs / 3));
  let leaseUntil = until.getTime();
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

export function createReserver(options: ReserverOptions) {
  const { db, box, http, retries, metrics } = options;
  const clock = options.clock ?? (() => new Date());
  const backoff = options.backoffMs ?? ((n: number) => Math.min(1000, 100 * 2 ** n));

  return async function reserve(input: ReserveInput): Promise<ReserveResult> {
    const tenantId = requireUuid(input.tenantId, 'tenantId');
    const endpoint = await loadEndpoint(db, box, tenantId);
    const owner = `reserve/${randomUUID()}`;
    const now = clock();
    const transactionId = randomUUID();
    const key = { tenant_id: tenantId, transaction_id: transactionId };
    const call = {
      tenantId,
      transactionId,
      betId: requireUuid(input.betId, 'betId'),
      userId: requireUuid(input.userId, 'userId'),
      op: 'reserve' as const,
      amount: normalizeAmount(input.amount),
      bonusFlag: input.bonusFlag,
      extra: validateExtra('reserve', { metadata: input.metadata }),
    };
    const body = buildBody({ ...call, token: input.token }, endpoint.amountUnit);
    // The row is written first, leased to this caller, so a crash at any point leaves a row the
    // worker's rescue can finish.
    const until = new Date(now.getTime() + options.leaseMs);
    // A reserve opens its bet's sequence: a second one would be sent at once, beside or ahead of
    // calls already queued for the bet, so it is refused (and nothing is written).
    const { seq } = await withTransaction(db, async (tx) => {
      const written = await writeOutboxRow(tx, { ...call, secretEnc: box.seal(input.token), now, lease: { owner, until } });
      if (written.seq !== 1) {
        throw new AppError('wallet_bet_has_calls', `bet ${call.betId} already has wallet calls: a reserve must be its first (use a new betId)`);
      }
      return written;
    });
    const lease = holdLease(db, { ...key, owner }, until, options.leaseMs, clock);
    const attempts: Attempt[] = [];
    let last: Attempt;
    try {
      for (let ask = 0; ; ask++) {
        const sent = await http.send(endpoint, 'reserve', body, transactionId, lease.signal);
        attempts.push(...sent);
        last = sent[sent.length - 1]!;
        if (last.verdict !== 'retry' || ask >= retries || lease.signal.aborted) break;
        await new Promise((resolve) => setTimeout(resolve, backoff(ask)));
      }
      lease.release();
      if (lease.signal.aborted) {
        // The rescue owns the call now: it asks again and queues the conditional refund.
        metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'unknown' });
        return { outcome: 'unknown', transactionId, error: `${last.error ?? `HTTP ${last.httpStatus}`}; ${String(lease.signal.reason)}`, refundQueued: true };
      }
      return await finish({ ...call, seq }, owner, attempts, last, now);
    } finally {
      lease.release();
    }
  };

  /** Records the asks and turns their last answer into the result placement acts on. */
  async function finish(call: CallFacts & { transactionId: string }, owner: string, attempts: Attempt[], last: Attempt, now: Date): Promise<ReserveResult> {
    const { tenantId, transactionId } = call;
    const key = { tenant_id: tenantId, transaction_id: transactionId };
    const records = attempts.map((a, i) => attemptRecord(key, i + 1, a, owner));
    const end = clock();
    const base = {
      ...key, owner, attempts: attempts.length, failures: 0, last_http_status: last.httpStatus, last_code: last.code ?? null,
      last_error: last.error ?? last.message ?? null,
    };
    if (last.verdict === 'success') {
      const moved = await withTransaction(db, async (tx) => {
        const rows = await oq.complete(tx, [{ ...base, status: 'delivered', next_attempt_at: now, finished_at: end }], records);
        // The placement guard: released when placement queues the bet's next call in time, sent
        // otherwise, so a placement that dies now leaves no user money held (docs/wallet.md).
        if (rows.length) await queueConditionalRefund(tx, call, end, new Date(end.getTime() + options.placementWindowMs));
        return rows;
      });
      if (moved.length) {
        metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'reserved' });
        return { outcome: 'reserved', transactionId };
      }
      // The lease ran out just before: the rescue already queued a refund, so the bet must not be taken.
      metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'unknown' });
      return { outcome: 'unknown', transactionId, error: 'reserved, but the lease ran out before it was recorded; it will be refunded', refundQueued: true };
    }
    if (last.verdict !== 'retry' || attempts.every((a) => a.notSent)) {
      // 'final' or a 401 that a fresh token did not cure: the wallet declined the placement. Or no
      // ask ever reached the wallet (no token, no connection): nothing can be reserved, so the
      // outcome is known and nothing needs asking or refunding later.
      await oq.complete(db, [{ ...base, status: 'refused', next_attempt_at: now, finished_at: end }], records);
      metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'rejected' });
      const message = last.message ?? last.error;
      return { outcome: 'rejected', transactionId, httpStatus: last.httpStatus, ...(last.code && { code: last.code }), ...(message && { message }) };
    }
    await withTransaction(db, async (tx) => {
      // The worker asks again at once, then on the spec 8 schedule; the refund waits behind it.
      await oq.complete(tx, [{ ...base, status: 'pending', next_attempt_at: end, finished_at: null }], records);
      await queueConditionalRefund(tx, call, end);
    });
    metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'unknown' });
    return { outcome: 'unknown', transactionId, error: last.error ?? last.message ?? `HTTP ${last.httpStatus}`, refundQueued: true };
  }
}

export type Reserve = ReturnType<typeof createReserver>;

/** What the conditional refund copies from its reserve. */
interface CallFacts {
  tenantId: string;
  betId: string;
  userId: string;
  amount: string;
  bonusFlag: boolean;
  seq: number;
}

/** A refundBet sent only if the reserve succeeded; with `guardUntil`, the placement guard due then. */
async function queueConditionalRefund(tx: Tx, call: CallFacts, now: Date, guardUntil?: Date): Promise<void> {
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
