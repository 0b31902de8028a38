// SQL of the delivery worker: claim, record results (one statement per batch), renew leases,
// rescue reserve calls whose sender died.
import type { Queryable } from '../../../db/pool.ts';
import type { AttemptRow, CallRow } from '../outbox/outbox.queries.ts';

export interface ClaimInput {
  tenantId: string;
  now: Date;
  max: number;
  limit: number;
  owner: string;
  leaseUntil: Date;
}

export async function claim(db: Queryable, c: ClaimInput): Promise<CallRow[]> {
  const { rows } = await db.query<CallRow>('SELECT * FROM wallet_claim($1, $2, $3, $4, $5, $6)', [
    c.tenantId, c.now, c.max, c.limit, c.owner, c.leaseUntil,
  ]);
  return rows;
}

/** The new state of a call after one delivery round. */
export interface CallResult {
  tenant_id: string;
  transaction_id: string;
  owner: string;
  status: 'pending' | 'delivered' | 'refused' | 'failed';
  failures: number;
  attempts: number;
  next_attempt_at: Date;
  finished_at: Date | null;
  last_http_status: number | null;
  last_code: string | null;
  last_error: string | null;
}

/** An attempt as the sender records it (the sender is always known). */
export type AttemptRecord = AttemptRow & { worker: string };

const col = <T, K extends keyof T>(rows: T[], key: K) => rows.map((r) => r[key]);

/**
 * Records attempts and moves the calls to their new state, in one statement. A call whose lease
 * this sender no longer holds (it expired and was taken over) keeps its state; its attempt is
 * still recorded. Returns the calls that moved.
 */
export async function complete(db: Queryable, results: CallResult[], attempts: AttemptRecord[]): Promise<{ tenant_id: string; transaction_id: string }[]> {
  const { rows } = await db.query<{ tenant_id: string; transaction_id: string }>(
    `WITH a AS (
       INSERT INTO wallet_call_attempts (tenant_id, transaction_id, attempt, started_at, duration_ms, http_status,
                                         outcome, response_body, error, worker)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::int[], $6::int[],
                            $7::text[], $8::text[], $9::text[], $10::text[])
       ON CONFLICT DO NOTHING)
     UPDATE wallet_calls c
        SET status = r.status, failures = r.failures, attempts = r.attempts, next_attempt_at = r.next_at,
            finished_at = r.finished_at, last_http_status = r.http_status, last_code = r.code,
            last_error = r.error, lease_until = NULL, lease_owner = NULL,
            -- The user's placement token (reserve) is kept only while the call may still be sent.
            secret_enc = CASE WHEN r.status IN ('delivered', 'refused') THEN NULL ELSE c.secret_enc END
       FROM unnest($11::uuid[], $12::uuid[], $13::text[], $14::text[], $15::int[], $16::int[], $17::timestamptz[],
                   $18::timestamptz[], $19::int[], $20::text[], $21::text[])
            AS r(tenant_id, transaction_id, owner, status, failures, attempts, next_at, finished_at, http_status, code, error)
      WHERE c.tenant_id = r.tenant_id AND c.transaction_id = r.transaction_id
        AND c.status = 'sending' AND c.lease_owner = r.owner
      RETURNING c.tenant_id, c.transaction_id`,
    [
      col(attempts, 'tenant_id'), col(attempts, 'transaction_id'), col(attempts, 'attempt'), col(attempts, 'started_at'),
      col(attempts, 'duration_ms'), col(attempts, 'http_status'), col(attempts, 'outcome'), col(attempts, 'response_body'),
      col(attempts, 'error'), col(attempts, 'worker'),
      col(results, 'tenant_id'), col(results, 'transaction_id'), col(results, 'owner'), col(results, 'status'),
      col(results, 'failures'), col(results, 'attempts'), col(results, 'next_attempt_at'), col(results, 'finished_at'),
      col(results, 'last_http_status'), col(results, 'last_code'), col(results, 'last_error'),
    ],
  );
  return rows;
}

/**
 * Extends the leases of calls still in flight, so a slow round is never taken over. Returns the
 * keys ("tenant/transaction/owner") whose lease this sender still held and extended.
 */
export async function renewLeases(db: Queryable, keys: { tenant_id: string; transaction_id: string; owner: string }[], leaseUntil: Date): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const { rows } = await db.query<{ tenant_id: string; transaction_id: string; lease_owner: string }>(
    `UPDATE wallet_calls c SET lease_until = $4
       FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS k(tenant_id, transaction_id, owner)
      WHERE c.tenant_id = k.tenant_id AND c.transaction_id = k.transaction_id
        AND c.status = 'sending' AND c.lease_owner = k.owner
      RETURNING c.tenant_id, c.transaction_id, c.lease_owner`,
    [col(keys, 'tenant_id'), col(keys, 'transaction_id'), col(keys, 'owner'), leaseUntil],
  );
  return new Set(rows.map((r) => `${r.tenant_id}/${r.transaction_id}/${r.lease_owner}`));
}

/**
 * A refundBet queued after a reservation that was refused for good, or closed by hand, must not
 * be sent (spec 3: refundBet only after a successful reservation).
 */
export async function skipConditionalCalls(db: Queryable, tenantId: string, betId: string, afterSeq: number, now: Date,
  note = 'not sent: the reservation before it was refused by the wallet'): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE wallet_calls SET status = 'skipped', finished_at = $4, note = $5
      WHERE tenant_id = $1 AND bet_id = $2 AND seq > $3 AND only_if_reserved AND status = 'pending'`,
    [tenantId, betId, afterSeq, now, note],
  );
  return rowCount ?? 0;
}

/** Reserve calls whose synchronous sender died (lease expired), locked for the rescue. */
export async function lockOrphanedReserves(db: Queryable, now: Date, limit: number): Promise<CallRow[]> {
  const { rows } = await db.query<CallRow>(
    `SELECT * FROM wallet_calls
      WHERE status = 'sending' AND op = 'reserve' AND lease_until <= $1
      ORDER BY lease_until LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** Turns an orphaned reserve into an ordinary pending call, due now. */
export async function requeueReserve(db: Queryable, tenantId: string, transactionId: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE wallet_calls SET status = 'pending', next_attempt_at = $3, attempts = attempts + 1
      WHERE tenant_id = $1 AND transaction_id = $2`,
    [tenantId, transactionId, now],
  );
  await db.query(
    `INSERT INTO wallet_call_attempts (tenant_id, transaction_id, attempt, started_at, duration_ms, outcome, error, worker)
     SELECT tenant_id, transaction_id, attempts, $3, 0, 'interrupted',
            'lease expired: placement stopped before learning the outcome; asking again', lease_owner
       FROM wallet_calls WHERE tenant_id = $1 AND transaction_id = $2
     ON CONFLICT DO NOTHING`,
    [tenantId, transactionId, now],
  );
}
