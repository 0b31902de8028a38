// Reserve (spec 3, 8): sent at bet placement while the caller waits. The call is written to the
// outbox first, leased to this caller, so that a crash at any point leaves a row the worker can
// finish. When the outcome is unknown (timeout, network error, 5xx, a body that is not the
// spec's), the same transactionId is asked again up to WAGERLINE_WALLET_RESERVE_RETRIES times.
// If it stays unknown, the bet is NOT taken: the reserve goes on asking in the background and a
// refundBet is queued behind it that is sent only if the reserve turns out to have succeeded
// (spec 3: refundBet only after a successful reservation), so no user money stays held.
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { withTransaction, type Pool, type Tx } from '../../db/pool.ts';
import { normalizeAmount } from './wallet.amount.ts';
import { buildBody, requireUuid, validateExtra, type ReserveMetadata } from './wallet.body.ts';
import type { Attempt, WalletHttp } from './wallet.client.ts';
import { loadEndpoint } from './wallet-config.service.ts';
import type { WalletMetrics } from './wallet.metrics.ts';
import { writeOutboxRow } from './wallet.outbox.ts';
import * as oq from './outbox.queries.ts';
import { laterCalls, type CallRow } from './wallet.queries.ts';

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
  /** The wallet refused (a 4xx, e.g. insufficient funds or an invalid token): do not take the bet. */
  | { outcome: 'rejected'; transactionId: string; httpStatus: number | null; code?: string; message?: string }
  /** No certain answer: do not take the bet; a conditional refundBet is queued (see above). */
  | { outcome: 'unknown'; transactionId: string; error: string; refundQueued: true };

export interface ReserverOptions {
  db: Pool;
  box: SecretBox;
  http: WalletHttp;
  clock?: () => Date;
  timeoutMs: number;
  leaseMs: number;
  retries: number;
  metrics?: WalletMetrics;
  /** Pause before asking again (real time; short, the caller is waiting). */
  backoffMs?: (attempt: number) => number;
}

const attemptRecord = (row: { tenant_id: string; transaction_id: string }, n: number, a: Attempt, worker: string): oq.AttemptRecord => ({
  tenant_id: row.tenant_id,
  transaction_id: row.transaction_id,
  attempt: n,
  started_at: a.startedAt,
  duration_ms: a.durationMs,
  http_status: a.httpStatus,
  outcome: a.verdict,
  response_body: a.responseBody,
  error: a.error,
  worker,
});

export function createReserver(options: ReserverOptions) {
  const { db, box, http, timeoutMs, retries, metrics } = options;
  const clock = options.clock ?? (() => new Date());
  const backoff = options.backoffMs ?? ((n: number) => Math.min(1000, 100 * 2 ** n));

  return async function reserve(input: ReserveInput): Promise<ReserveResult> {
    const tenantId = requireUuid(input.tenantId, 'tenantId');
    const endpoint = await loadEndpoint(db, box, tenantId);
    const owner = `reserve/${randomUUID()}`;
    const now = clock();
    // Long enough for every ask (two exchanges each when a 401 renews the token), then a margin.
    const leaseUntil = new Date(now.getTime() + (retries + 1) * 2 * timeoutMs + options.leaseMs);
    const transactionId = randomUUID();
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
    const { seq } = await writeOutboxRow(db, { ...call, secretEnc: box.seal(input.token), now, lease: { owner, until: leaseUntil } });
    const body = buildBody({ ...call, token: input.token }, endpoint.amountUnit);

    const attempts: Attempt[] = [];
    let last: Attempt;
    for (let ask = 0; ; ask++) {
      const sent = await http.send(endpoint, 'reserve', body, transactionId);
      attempts.push(...sent);
      last = sent[sent.length - 1]!;
      if (last.verdict !== 'retry' || ask >= retries) break;
      await new Promise((resolve) => setTimeout(resolve, backoff(ask)));
    }
    const key = { tenant_id: tenantId, transaction_id: transactionId };
    const records = attempts.map((a, i) => attemptRecord(key, i + 1, a, owner));
    const end = clock();
    const base = {
      ...key, owner, attempts: attempts.length, failures: 0, last_http_status: last.httpStatus, last_code: last.code ?? null,
      last_error: last.error ?? last.message ?? null,
    };
    if (last.verdict === 'success') {
      await oq.complete(db, [{ ...base, status: 'delivered', next_attempt_at: now, finished_at: end }], records);
      metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'reserved' });
      return { outcome: 'reserved', transactionId };
    }
    if (last.verdict !== 'retry') {
      // 'final' or a 401 that a fresh token did not cure: the wallet declined the placement.
      await oq.complete(db, [{ ...base, status: 'refused', next_attempt_at: now, finished_at: end }], records);
      metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'rejected' });
      return { outcome: 'rejected', transactionId, httpStatus: last.httpStatus, ...(last.code && { code: last.code }), ...(last.message && { message: last.message }) };
    }
    await withTransaction(db, async (tx) => {
      // The worker asks again at once, then on the spec 8 schedule; the refund waits behind it.
      await oq.complete(tx, [{ ...base, status: 'pending', next_attempt_at: end, finished_at: null }], records);
      await queueConditionalRefund(tx, { ...call, seq }, end);
    });
    metrics?.calls.inc({ tenant: tenantId, operation: 'reserve', outcome: 'unknown' });
    return { outcome: 'unknown', transactionId, error: last.error ?? last.message ?? `HTTP ${last.httpStatus}`, refundQueued: true };
  };
}

export type Reserve = ReturnType<typeof createReserver>;

async function queueConditionalRefund(
  tx: Tx,
  call: { tenantId: string; betId: string; userId: string; amount: string; bonusFlag: boolean; seq: number },
  now: Date,
): Promise<void> {
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
