// The wallet module's entry point: one per process. It owns the HTTP pools and the token cache
// (shared by the synchronous reserve and the delivery worker), and the operator views of the
// outbox (calls of a bet, parked calls, retry, resolve).
import type { Registry } from 'prom-client';
import type { Config } from '../../config.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { skipConditionalCalls } from './delivery/delivery.queries.ts';
import { createWalletHttp } from './delivery/http-client.ts';
import { setWallet, type SetWalletInput } from './config/wallet-config.service.ts';
import { createWalletMetrics, type WalletMetrics } from './delivery/metrics.ts';
import { enqueueWalletCall, type WalletCallInput } from './outbox/enqueue.ts';
import * as q from './outbox/outbox.queries.ts';
import { createReserver } from './delivery/reserve.ts';
import { createWalletWorker } from './delivery/worker.ts';

export type WalletSettings = Pick<Config,
  'WAGERLINE_WALLET_TIMEOUT_MS' | 'WAGERLINE_WALLET_LEASE_MS' | 'WAGERLINE_WALLET_POLL_MS' | 'WAGERLINE_WALLET_RESERVE_RETRIES'>
  & Partial<Pick<Config, 'WAGERLINE_WALLET_PLACEMENT_WINDOW_MS'>>;

export interface WalletServiceDeps {
  db: Pool;
  box: SecretBox;
  config: WalletSettings;
  clock?: () => Date;
  registry?: Registry;
  /** The database URL for LISTEN (omit: the worker polls only). */
  listenUrl?: string;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

function callView(row: q.CallRow) {
  return {
    call_id: row.transaction_id,
    transaction_id: row.transaction_id,
    tenant_id: row.tenant_id,
    bet_id: row.bet_id,
    seq: row.seq,
    op: row.op,
    user_id: row.user_id,
    amount: row.amount,
    bonus_flag: row.bonus_flag,
    ...(row.extra.transactionType !== undefined && { transaction_type: row.extra.transactionType }),
    status: row.status,
    attempts: row.attempts,
    failures: row.failures,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    last_http_status: row.last_http_status,
    last_code: row.last_code,
    last_error: row.last_error,
    note: row.note,
  };
}

function attemptView(row: q.AttemptRow) {
  return {
    attempt: row.attempt,
    started_at: row.started_at.toISOString(),
    duration_ms: row.duration_ms,
    http_status: row.http_status,
    outcome: row.outcome,
    response_body: row.response_body,
    error: row.error,
  };
}

export function createWalletService(deps: WalletServiceDeps) {
  const { db, box, config } = deps;
  const clock = deps.clock ?? (() => new Date());
  const http = createWalletHttp({ timeoutMs: config.WAGERLINE_WALLET_TIMEOUT_MS, clock });
  const metrics: WalletMetrics | undefined = deps.registry ? createWalletMetrics(deps.registry, db, clock) : undefined;

  async function findFailed(callId: string): Promise<q.CallRow> {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const row = uuid.test(callId) ? await q.findCall(db, callId) : undefined;
    if (!row) throw new AppError('wallet_call_not_found', `no wallet call with id "${callId}"`);
    if (row.status !== 'failed') throw new AppError('wallet_call_not_failed', `wallet call ${callId} is ${row.status}, not failed`);
    return row;
  }

  return {
    http,
    metrics,
    clock,
    setWallet: (input: SetWalletInput) => setWallet(db, box, input),
    /** Queues a durable call in the caller's transaction (see wallet.outbox.ts). */
    enqueue: (tx: Queryable, input: WalletCallInput) => enqueueWalletCall(tx, input, { clock }),
    reserve: createReserver({
      db, box, http, clock, metrics,
      leaseMs: config.WAGERLINE_WALLET_LEASE_MS,
      retries: config.WAGERLINE_WALLET_RESERVE_RETRIES,
      placementWindowMs: config.WAGERLINE_WALLET_PLACEMENT_WINDOW_MS ?? 60_000,
    }),
    createWorker: (options: { batch?: number; listen?: boolean } = {}) => {
      if (config.WAGERLINE_WALLET_LEASE_MS <= config.WAGERLINE_WALLET_TIMEOUT_MS) {
        throw new AppError('bad_request', 'WAGERLINE_WALLET_LEASE_MS must exceed WAGERLINE_WALLET_TIMEOUT_MS');
      }
      return createWalletWorker({
        db, box, http, clock, metrics,
        leaseMs: config.WAGERLINE_WALLET_LEASE_MS,
        pollMs: config.WAGERLINE_WALLET_POLL_MS,
        ...(options.listen !== false && deps.listenUrl && { listenUrl: deps.listenUrl }),
        ...(options.batch && { batch: options.batch }),
        ...(deps.log && { log: deps.log }),
      });
    },

    /** Every call of a bet in sequence order, each with every attempt made. */
    async callsOfBet(betId: string) {
      const calls = await q.callsOfBet(db, betId);
      const attempts = await q.attemptsOf(db, calls);
      return {
        bet_id: betId,
        calls: calls.map((c) => ({
          ...callView(c),
          attempt_log: attempts.filter((a) => a.transaction_id === c.transaction_id && a.tenant_id === c.tenant_id).map(attemptView),
        })),
      };
    },
    async failed(tenantId?: string, limit = 1000) {
      const rows = await q.failedCalls(db, tenantId ?? null, limit);
      return { count: rows.length, calls: rows.map(callView) };
    },
    /** Re-queues a parked call with a fresh retry budget; later calls of its bet follow it. */
    async retry(callId: string) {
      const row = await findFailed(callId);
      const updated = await q.requeueCall(db, row.tenant_id, row.transaction_id, clock());
      if (!updated) throw new AppError('wallet_call_not_failed', `wallet call ${callId} is no longer failed`);
      await q.notifyWorkers(db, row.tenant_id);
      return callView(updated);
    },
    /**
     * Closes a parked call without sending it (settled by other means); unblocks its bet. A
     * reserve closed by hand also closes the refundBet queued on condition that it succeeded: the
     * operator has settled that reservation, and spec 3 allows no refund on an unknown one.
     */
    async resolve(callId: string, note: string) {
      const row = await findFailed(callId);
      const now = clock();
      const updated = await withTransaction(db, async (tx) => {
        const resolved = await q.resolveCall(tx, row.tenant_id, row.transaction_id, now, note);
        if (resolved?.op === 'reserve') {
          await skipConditionalCalls(tx, row.tenant_id, row.bet_id, row.seq, now, 'not sent: its reserve was resolved by hand (wallet resolve)');
        }
        return resolved;
      });
      if (!updated) throw new AppError('wallet_call_not_failed', `wallet call ${callId} is no longer failed`);
      await q.notifyWorkers(db, row.tenant_id);
      return callView(updated);
    },
    close: () => http.close(),
  };
}

export type WalletService = ReturnType<typeof createWalletService>;
