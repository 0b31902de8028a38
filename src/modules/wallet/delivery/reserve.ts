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
import { withTransaction, type Pool } from '../../../db/pool.ts';
import { normalizeAmount } from '../../../wallet-protocol/amounts.ts';
import { buildBody, requireUuid, validateExtra, type ReserveMetadata } from '../../../wallet-protocol/operations.ts';
import type { Attempt, WalletHttp } from './http-client.ts';
import { endpointOf } from '../config/wallet-config.service.ts';
import type { WalletMetrics } from './metrics.ts';
import { notConfigured } from '../outbox/enqueue.ts';
import * as oq from '../outbox/outbox.queries.ts';
import { deliverRequeuedReserve, insertReserves, type OpenedReserve, type OpeningSql } from '../outbox/placement.queries.ts';
import type { NewCall } from '../outbox/outbox.queries.ts';
import { grouped, nameOf } from '../../../db/grouped.ts';
import { holdLease } from './reserve-lease.ts';
import { createReserveTaker, EveryMemberFails, LeaseLost, type TakeGroup } from './reserve-take.ts';
import { queueConditionalRefund, releaseAfterFailedTake, TakeFailed, type CallFacts } from './reserve-release.ts';
import { attemptRecord, mayHaveReserved, refusalInconclusive } from './outcome.ts';
import type { DirectSender } from './direct-send.ts';
import { sealReserveToken } from './reserve-token.ts';

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

export type ReserveResult<T = undefined> =
  /** The caller's opening (ReserveSteps.open) wrote nothing: neither was the reserve written nor sent. */
  | { outcome: 'not_opened' }
  /**
   * The wallet holds the funds: take the bet, and queue confirm (or refundBet) in its transaction.
   * With a `take` step the bet was taken already: `taken` is what it returned.
   */
  | { outcome: 'reserved'; transactionId: string; taken: T | undefined }
  /** The wallet refused (a 4xx, e.g. insufficient funds or an invalid token), or was never reached: do not take the bet. */
  | { outcome: 'rejected'; transactionId: string; httpStatus: number | null; code?: string; message?: string }
  /** No certain answer: do not take the bet; a conditional refundBet is queued (see above). */
  | { outcome: 'unknown'; transactionId: string; error: string; refundQueued: true };

/**
 * A caller's opening, the same object for every reserve of that caller, so that reserves written
 * together share a statement: `sql` gives the caller's writes for the bets of `contexts` (OpeningSql).
 */
export interface OpenGroup<C> {
  sql(contexts: C[]): OpeningSql | undefined;
}

/** Most reserves written by one statement. */
const MAX_OPENED = 64;


/**
 * What placement does in the reserve's own statements, so that a placement costs two transactions.
 * `open` gives SQL of the caller's own writes, run first in the statement (its own transaction)
 * that writes the reserve's row — with the rows of other reserves of the same group written
 * meanwhile (db/grouped.ts) — so that placement stores its pending bet with it: see OpeningSql.
 * `take` runs in the transaction that records a successful reserve — with other reserves of the
 * same `group` answered meanwhile (reserve-take.ts) — and queues the bet's next call (confirm, or
 * refundBet of the whole) with the record itself, so no instant exists with the reserve recorded
 * and nothing queued behind it. A `take` that throws rolls the record back: the reserve's success is then
 * recorded in a transaction of its own with a refundBet due at once (releaseAfterFailedTake), and
 * TakeFailed is thrown with the step's error: the stake goes back without asking the wallet again.
 * `lockTimeoutMs` bounds how long `take` waits for a lock (a race held by a change).
 */
export interface ReserveSteps<T, C = unknown> {
  open?: { group: OpenGroup<C>; context: C };
  /** `lane`: only reserves of the same lane are taken together (placement: the bet's races). */
  take?: { group: TakeGroup<C, T>; context: C; lane?: string };
  lockTimeoutMs?: number;
}

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
  /** Sends a placement's next call at commit (direct-send.ts); without it the workers claim it. */
  sender?: DirectSender;
}

export function createReserver(options: ReserverOptions) {
  const { db, box, http, retries, metrics } = options;
  const clock = options.clock ?? (() => new Date());
  const backoff = options.backoffMs ?? ((n: number) => Math.min(1000, 100 * 2 ** n));
  const taker = createReserveTaker({ db, clock, placementWindowMs: options.placementWindowMs, ...(metrics && { metrics }),
    ...(options.sender && { sender: options.sender }) });
  const plain: OpenGroup<unknown> = { sql: () => undefined };
  // Keyed by the caller's group and the tenant: a tenant's rows never wait on another's statement.
  const opens = grouped<string, { group: OpenGroup<unknown>; row: NewCall; context: unknown }, OpenedReserve>({
    max: MAX_OPENED,
    together: async (_, items) => insertReserves(db, items.map((i) => i.row), items[0]!.group.sql(items.map((i) => i.context))),
  });

  return async function reserve<T = undefined, C = unknown>(input: ReserveInput, steps: ReserveSteps<T, C> = {}): Promise<ReserveResult<T>> {
    const tenantId = requireUuid(input.tenantId, 'tenantId');
    const owner = `reserve/${randomUUID()}`;
    const now = clock();
    const transactionId = randomUUID();
    const key = { tenant_id: tenantId, transaction_id: transactionId };
    const call: ReserveCall = {
      tenantId,
      transactionId,
      betId: requireUuid(input.betId, 'betId'),
      userId: requireUuid(input.userId, 'userId'),
      op: 'reserve' as const,
      amount: normalizeAmount(input.amount),
      bonusFlag: input.bonusFlag,
      extra: validateExtra('reserve', { metadata: input.metadata }),
    };
    const until = new Date(now.getTime() + options.leaseMs);
    const written = await writeReserve(call, input.token, { owner, until, now }, steps.open);
    if (!written) return { outcome: 'not_opened' };
    const { seq, endpoint, body } = written;
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
      if (lease.signal.aborted) {
        // Never sent (the lease was about to run out before the first ask): closed as never
        // reached while still ours, or the rescue would reserve for a bet answered already.
        if (attempts.every((a) => a.notSent) && await closeUnsent({ ...key, owner }, attempts, now)) {
          metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'rejected' });
          return { outcome: 'rejected', transactionId, httpStatus: null, message: `not sent: ${String(lease.signal.reason)}` };
        }
        // The rescue owns the call now: it asks again and queues the conditional refund.
        metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'unknown' });
        return { outcome: 'unknown', transactionId, error: `${last.error ?? `HTTP ${last.httpStatus}`}; ${String(lease.signal.reason)}`, refundQueued: true };
      }
      // The lease is still renewed while the answer is recorded: a slow `take` step (a race's lock
      // held by a status change) keeps the reserve, which the record then moves only if still ours.
      return await finish({ ...call, seq }, owner, attempts, last, now, steps);
    } finally {
      lease.release();
    }
  };

  /**
   * Writes the reserve's row first, leased to its sender, so a crash at any point leaves a row the
   * worker's rescue can finish; the same statement writes the caller's opening and reads the
   * wallet's configuration. Undefined when the opening wrote nothing (then neither did this).
   */
  async function writeReserve<C>(call: ReserveCall, token: string, lease: { owner: string; until: Date; now: Date }, opening?: ReserveSteps<unknown, C>['open']) {
    const { owner, until, now } = lease;
    const place = { tenant_id: call.tenantId, transaction_id: call.transactionId, bet_id: call.betId, user_id: call.userId };
    const row: NewCall = {
      ...place, op: 'reserve', amount: call.amount, bonus_flag: call.bonusFlag, extra: call.extra as Record<string, unknown>,
      secret_enc: sealReserveToken(box, place, token), // bound to this row: copied to another, it does not open
      only_if_reserved: false, placement_guard: false, status: 'sending', now, due_at: null, lease_until: until, lease_owner: owner,
    };
    const group = (opening?.group ?? plain) as OpenGroup<unknown>;
    const context = opening?.context;
    const written = await opens(`${nameOf(group)}|${call.tenantId}`, { group, row, context },
      async () => (await insertReserves(db, [row], group.sql([context])))[0]!);
    if (!written.opened) return undefined;
    if (!written.reserve) throw notConfigured(call.tenantId);
    const { seq, ...config } = written.reserve;
    // A reserve opens its bet's sequence: a second one would be sent at once, beside or ahead of
    // calls already queued for the bet, so it is refused (and no call is written).
    if (seq === null) {
      throw new AppError('wallet_bet_has_calls', `bet ${call.betId} already has wallet calls: a reserve must be its first (use a new betId)`);
    }
    try {
      const endpoint = endpointOf(config, box);
      return { seq, endpoint, body: buildBody({ ...call, token }, endpoint.amountUnit) };
    } catch (error) {
      // A configuration that cannot be opened (a secret sealed with another key): the reserve is
      // never sent, so it is 'skipped' (not 'refused': the wallet was never asked), and says why.
      await oq.complete(db, [{ tenant_id: call.tenantId, transaction_id: call.transactionId, owner, status: 'skipped', failures: 0,
        attempts: 0, next_attempt_at: now, finished_at: now, last_http_status: null, last_code: null,
        last_error: `not sent: ${error instanceof Error ? error.message : String(error)}` }], []);
      throw error;
    }
  }

  /** Records a reserve never sent as refused, if its sender still holds it; false otherwise (or the database failed). */
  async function closeUnsent(key: { tenant_id: string; transaction_id: string; owner: string }, attempts: Attempt[], now: Date): Promise<boolean> {
    const last = attempts[attempts.length - 1]!;
    const moved = await oq.complete(db, [{ ...key, status: 'refused', failures: 0, attempts: attempts.length, next_attempt_at: now, finished_at: clock(),
      last_http_status: null, last_code: null, last_error: last.error ?? 'not sent' }], attempts.map((a, i) => attemptRecord(key, i + 1, a, key.owner)))
      .catch(() => []);
    return moved.length > 0;
  }

  /** Records the asks and turns their last answer into the result placement acts on. */
  async function finish<T, C>(call: CallFacts & { transactionId: string }, owner: string, attempts: Attempt[], last: Attempt, now: Date,
    steps: ReserveSteps<T, C>): Promise<ReserveResult<T>> {
    const { tenantId, transactionId } = call;
    const key = { tenant_id: tenantId, transaction_id: transactionId };
    const records = attempts.map((a, i) => attemptRecord(key, i + 1, a, owner));
    const end = clock();
    const base = {
      ...key, owner, attempts: attempts.length, failures: 0, last_http_status: last.httpStatus, last_code: last.code ?? null,
      last_error: last.error ?? last.message ?? null,
    };
    if (last.verdict === 'success') {
      const delivered = { ...base, status: 'delivered' as const, next_attempt_at: now, finished_at: end };
      const reserve = { ...call, result: delivered, attempts: records };
      // Key lookups and writes by named statements only: planning them anew for each placement's
      // values cost more of PostgreSQL's time than running them (docs/performance-bets-2026-11-23.md).
      const txOptions = { genericPlans: true, ...(steps.lockTimeoutMs !== undefined && { lockTimeoutMs: steps.lockTimeoutMs }) };
      const member = { reserve, context: steps.take?.context };
      // A group whose failure is every member's (its lane's races stayed locked) is not retried:
      // each bet fails at once with the group's cause, as it would alone after waiting as long.
      const alone = (groupError?: unknown) => (groupError instanceof EveryMemberFails ? Promise.reject(groupError.cause)
        : taker.recordCommitted([member], end, steps.take?.group, txOptions))
        .then((recorded) => recorded && { taken: recorded.taken[0] as T | undefined })
        .catch(async (error: unknown) => {
          if (error instanceof LeaseLost) {
            await oq.complete(db, [delivered], records); // the attempts alone: the row is the rescue's
            // Still waiting for a worker's ask: the success heard here is recorded, and the
            // rescue's refund goes out without the wallet being asked again.
            await deliverRequeuedReserve(db, delivered);
            return undefined;
          }
          // The wallet holds the stake and nobody took the bet: refund it now. Should this fail
          // too, the reserve stays leased to this sender and the rescue releases it after the lease.
          const refundQueued = await releaseAfterFailedTake(db, reserve, clock()).catch(() => false);
          throw steps.take ? new TakeFailed(error, refundQueued) : error;
        });
      const moved = steps.take ? await taker.together(steps.take, member, txOptions, alone) : await alone();
      if (moved) {
        metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'reserved' });
        return { outcome: 'reserved', transactionId, taken: moved.taken };
      }
      // The lease ran out just before: the rescue already queued a refund, so the bet must not be taken.
      metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'unknown' });
      return { outcome: 'unknown', transactionId, error: 'reserved, but the lease ran out before it was recorded; it will be refunded', refundQueued: true };
    }
    // A 401, 403 or 409 after an ask that may have reserved proves nothing of that ask: unknown.
    const doubtful = attempts.slice(0, -1).some(mayHaveReserved) && refusalInconclusive(last);
    if ((last.verdict !== 'retry' && !doubtful) || attempts.every((a) => a.notSent)) {
      // 'final' or 'unauthorized' (a 401 a fresh token did not cure, an API key's 401 or 403): the
      // wallet declined the placement. Or no ask ever reached the wallet (no token, no connection):
      // nothing can be reserved, so the outcome is known and nothing needs asking or refunding later.
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

/** A reserve as it is written and sent. */
interface ReserveCall {
  tenantId: string;
  transactionId: string;
  betId: string;
  userId: string;
  op: 'reserve';
  amount: string;
  bonusFlag: boolean;
  extra: ReturnType<typeof validateExtra>;
}

