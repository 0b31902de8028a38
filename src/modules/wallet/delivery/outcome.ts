// What one delivery round of a call means for its outbox row: delivered, retried later on the
// spec 8 schedule, parked as failed, or (reserve) refused — and the attempt rows to record.
// A pure function of the row, the HTTP exchanges and the time, shared by the worker's tests.
import type { Attempt } from './http-client.ts';
import type { AttemptRecord, CallResult } from '../outbox/outbox.queries.ts';
import type { CallRow } from '../outbox/outbox.queries.ts';
import { afterFailure } from '../../../wallet-protocol/responses.ts';

export interface RoundOutcome {
  result: CallResult;
  attempts: AttemptRecord[];
  /** The wallet refused the call for good (a final 4xx, or a reserve's second 401, unless doubtful: see roundOutcome). */
  refused: boolean;
}

/** The attempt row that records the n-th HTTP exchange of a call. */
export function attemptRecord(row: { tenant_id: string; transaction_id: string }, n: number, a: Attempt, worker: string): AttemptRecord {
  return {
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
  };
}

/** An ask that may have reserved although no success was heard: sent, and no answer (timeout, reset, 5xx, a body not the spec's). */
export const mayHaveReserved = (a: Attempt): boolean => a.verdict === 'retry' && !a.notSent;

/**
 * A refusal that says nothing of an earlier ask of the same transactionId: a 401 or 403 (a token
 * or a right refused; the user's token may have expired since that ask) or a 409 (a conflict: the
 * wallet may hold the transaction already). After an ask that may have reserved, it is no proof
 * that nothing is held.
 */
export const refusalInconclusive = (a: Attempt): boolean => a.httpStatus === 401 || a.httpStatus === 403 || a.httpStatus === 409;

/**
 * The round of a call this process cannot send (`why`: its sealed token cannot be opened): nothing
 * sent, and nothing would be on a retry. It is parked for an operator; a reserve keeps its refund
 * behind it (a worker only asks a reserve that may already hold the stake).
 */
export function notSendable(now: Date, why: string): Attempt {
  return { startedAt: now, durationMs: 0, httpStatus: null, responseBody: null, verdict: 'final', notSent: true, error: `not sent: ${why}` };
}

const DOUBTFUL = 'after an earlier ask that may have reserved: the wallet may hold the stake (check it, then wallet retry, or wallet resolve with --reserved if it holds it)';

export function roundOutcome(row: CallRow, owner: string, worker: string, sent: Attempt[], now: Date): RoundOutcome {
  const last = sent[sent.length - 1]!;
  // A 401 that survived a token renewal, or an API-key wallet's 401 or 403: for reserve the wallet
  // refused the placement token (spec 7.2) or our key; for the other calls our credentials are
  // wrong, which the operator can fix, so the call keeps its place and follows the schedule.
  // A refused settleBet is retried on the schedule too: spec 3, 7.3 and 8 retry settleBet "on
  // failure", and a winner's payout must not wait for an operator because of a passing refusal.
  const verdict = last.verdict === 'unauthorized' ? (row.op === 'reserve' ? 'final' : 'retry')
    : last.verdict === 'final' && row.op === 'settleBet' ? 'retry' : last.verdict;
  // A reserve reaches a worker only when an earlier ask may have reserved (placement's asks went
  // unanswered, or its process died while asking): an inconclusive refusal parks it `failed`, its
  // conditional refund kept behind it, instead of `refused` with the refund skipped.
  const doubtful = row.op === 'reserve' && verdict === 'final' && (refusalInconclusive(last) || last.notSent === true);
  const base = {
    tenant_id: row.tenant_id,
    transaction_id: row.transaction_id,
    owner,
    attempts: row.attempts + sent.length,
    last_http_status: last.httpStatus,
    last_code: last.code ?? null,
    last_error: doubtful && last.notSent ? `${last.error} ${DOUBTFUL}`
      : doubtful ? `refused (HTTP ${last.httpStatus}${last.message ? `: ${last.message}` : ''}) ${DOUBTFUL}`
      : last.error ?? last.message ?? (verdict === 'success' ? null : `HTTP ${last.httpStatus}`),
  };
  let result: CallResult;
  if (verdict === 'success') {
    result = { ...base, status: 'delivered', failures: row.failures, next_attempt_at: row.next_attempt_at, finished_at: now };
  } else {
    const next = afterFailure(row.failures, verdict, now);
    const parked = verdict === 'final' && row.op === 'reserve' && !doubtful ? 'refused' : 'failed';
    result = next.status === 'failed'
      ? { ...base, status: parked, failures: next.failures, next_attempt_at: row.next_attempt_at, finished_at: now }
      : { ...base, status: 'pending', failures: next.failures, next_attempt_at: next.nextAttemptAt, finished_at: null };
  }
  const attempts = sent.map((a, i) => attemptRecord(row, row.attempts + i + 1, a, worker));
  return { result, attempts, refused: verdict === 'final' && !doubtful };
}
