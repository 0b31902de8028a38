// Operator controls of the outbox: every call of a bet with its attempts, the parked calls, and
// the two ways out of parking (retry, resolve). The CLI calls these for any tenant; the admin API
// passes the caller's tenant, and a call or bet of another tenant is then not found.
import { withTransaction, type Pool } from '../../../db/pool.ts';
import { AppError } from '../../../errors.ts';
import { notifyWorkers, skipConditionalCalls, type AttemptRow, type CallRow } from '../outbox/outbox.queries.ts';
import * as q from './controls.queries.ts';
import { isUuid } from '../../../racing/values.ts';
import { operatorText } from '../../../http/text-rules.ts';

function callView(row: CallRow) {
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

/** A later call of a parked call's bet, held until the parked one is delivered or resolved. */
function heldView(row: q.HeldCall) {
  return {
    call_id: row.transaction_id,
    seq: row.seq,
    op: row.op,
    amount: row.amount,
    ...(row.transaction_type !== null && { transaction_type: row.transaction_type }),
  };
}

/**
 * The call each call (each bet's in sequence order) waits for: its bet's lowest open call, for a
 * pending call after it (the claim sends only that one: worker.ts); null for any other.
 */
function heldBy(calls: CallRow[]): Array<string | null> {
  const lowestOpen = new Map<string, CallRow>();
  return calls.map((c) => {
    const first = lowestOpen.get(`${c.tenant_id}/${c.bet_id}`);
    if (!first && ['pending', 'sending', 'failed'].includes(c.status)) lowestOpen.set(`${c.tenant_id}/${c.bet_id}`, c);
    return first && c.status === 'pending' ? first.transaction_id : null;
  });
}

function attemptView(row: AttemptRow) {
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

export function createWalletControls({ db, clock }: { db: Pool; clock: () => Date }) {
  async function findCall(callId: string, tenantId?: string): Promise<CallRow> {
    const row = isUuid(callId) ? await q.findCall(db, callId, tenantId ?? null) : undefined;
    if (!row) throw new AppError('wallet_call_not_found', `no wallet call with id "${callId}"`);
    return row;
  }

  async function findFailed(callId: string, tenantId?: string): Promise<CallRow> {
    const row = await findCall(callId, tenantId);
    if (row.status !== 'failed') throw new AppError('wallet_call_not_failed', `wallet call ${callId} is ${row.status}, not failed`);
    return row;
  }

  return {
    /**
     * Every call of a bet in sequence order, each with every attempt made and the call it waits
     * for (`held_by`). With a tenant, only that tenant's calls, and a bet the tenant does not have
     * is not found.
     */
    async callsOfBet(betId: string, tenantId?: string) {
      const calls = await q.callsOfBet(db, betId, tenantId ?? null);
      if (tenantId !== undefined && !calls.length && !(await q.betExists(db, tenantId, betId))) {
        throw new AppError('bet_not_found', `tenant ${tenantId} has no bet ${betId}`);
      }
      const attempts = await q.attemptsOf(db, calls);
      const waitsFor = heldBy(calls);
      return {
        bet_id: betId,
        calls: calls.map((c, i) => ({
          ...callView(c),
          held_by: waitsFor[i]!,
          attempt_log: attempts.filter((a) => a.transaction_id === c.transaction_id && a.tenant_id === c.tenant_id).map(attemptView),
        })),
      };
    },
    /**
     * Every call of each bet named (tenant and bet), keyed "tenant:bet", in sequence order with
     * their attempts: one statement whatever the number of bets (the back-office reads a page).
     */
    async callsOfBets(keys: Array<{ tenant_id: string; bet_id: string }>) {
      type Listed = ReturnType<typeof callView> & { held_by: string | null; attempt_log: ReturnType<typeof attemptView>[] };
      const byBet = new Map(keys.map((k) => [`${k.tenant_id}:${k.bet_id}`, [] as Listed[]]));
      const calls = await q.callsOfBetKeys(db, keys);
      const waitsFor = heldBy(calls);
      calls.forEach((c, i) => byBet.get(`${c.tenant_id}:${c.bet_id}`)?.push({ ...callView(c), held_by: waitsFor[i]!, attempt_log: c.attempt_log.map(attemptView) }));
      return byBet;
    },
    /** The parked calls, each with the later calls of its bet it holds (`held_calls`). */
    async failed(tenantId?: string, limit = 1000) {
      const { total, rows } = await q.failedCalls(db, tenantId ?? null, limit);
      const held = new Map<string, q.HeldCall[]>();
      for (const h of await q.heldBehind(db, rows)) held.set(`${h.tenant_id}/${h.bet_id}`, [...(held.get(`${h.tenant_id}/${h.bet_id}`) ?? []), h]);
      const behind = (c: CallRow) => (held.get(`${c.tenant_id}/${c.bet_id}`) ?? []).filter((h) => h.seq > c.seq).map(heldView);
      return { count: total, calls: rows.map((c) => ({ ...callView(c), held_calls: behind(c) })) };
    },
    /**
     * Sends a parked call again now, with a fresh retry budget — or one waiting for its next
     * attempt after a failure (a settleBet the wallet refused waits up to hours on the schedule);
     * later calls of its bet follow it. With a tenant, only its own call.
     */
    async retry(callId: string, tenantId?: string) {
      const row = await findCall(callId, tenantId);
      // failures > 0 only once the worker has tried it (a placement's own asks leave it at 0).
      const waiting = row.status === 'pending' && row.failures > 0;
      if (row.status !== 'failed' && !waiting) {
        throw new AppError('wallet_call_not_failed', `wallet call ${callId} is ${row.status}${row.failures > 0 ? '' : ' and has not failed'}: `
          + 'only a failed call, or one waiting after a failure, is retried');
      }
      const updated = await q.requeueCall(db, row.tenant_id, row.transaction_id, clock());
      if (!updated) throw new AppError('wallet_call_not_failed', `wallet call ${callId} is no longer failed or waiting (a worker took it)`);
      await notifyWorkers(db, row.tenant_id);
      return callView(updated);
    },
    /**
     * Closes a parked call without sending it (settled by other means); unblocks its bet. A
     * reserve closed by hand also closes the refundBet queued on condition that it succeeded: the
     * operator has settled that reservation, and spec 3 allows no refund on an unknown one —
     * unless `reserved` says the wallet was found holding it: then that refundBet is sent.
     */
    async resolve(callId: string, note: string, tenantId?: string, options: { reserved?: boolean } = {}) {
      // The note is the only record of how the call was settled: required, and checked here for
      // the CLI as the route's schema checks it for the API.
      const why = operatorText('note', note, true)!;
      const row = await findFailed(callId, tenantId);
      if (options.reserved && row.op !== 'reserve') {
        throw new AppError('bad_request', `wallet call ${callId} is a ${row.op}: only a reserve is resolved as reserved`);
      }
      const now = clock();
      const updated = await withTransaction(db, async (tx) => {
        const resolved = await q.resolveCall(tx, row.tenant_id, row.transaction_id, now, why);
        if (resolved?.op === 'reserve' && !options.reserved) {
          await skipConditionalCalls(tx, row.tenant_id, row.bet_id, row.seq, now, 'not sent: its reserve was resolved by hand (wallet resolve)');
        }
        return resolved;
      });
      if (!updated) throw new AppError('wallet_call_not_failed', `wallet call ${callId} is no longer failed`);
      await notifyWorkers(db, row.tenant_id);
      return callView(updated);
    },
  };
}

export type WalletControls = ReturnType<typeof createWalletControls>;
