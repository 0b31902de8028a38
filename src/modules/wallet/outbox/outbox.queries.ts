// SQL of the wallet outbox (wallet_calls, wallet_call_attempts): the writer, recording results
// (one statement per batch), leases, the placement guard, rescuing reserves (the claim: delivery/claim.ts).
import type { Queryable } from '../../../db/pool.ts';

export interface CallRow {
  tenant_id: string;
  transaction_id: string;
  bet_id: string;
  seq: number;
  user_id: string;
  op: string;
  amount: string;
  amount_unit: 'dollars' | 'cents';
  bonus_flag: boolean;
  extra: Record<string, unknown>;
  secret_enc: string | null;
  only_if_reserved: boolean;
  placement_guard: boolean;
  status: 'pending' | 'sending' | 'delivered' | 'refused' | 'failed' | 'skipped' | 'resolved';
  failures: number;
  attempts: number;
  next_attempt_at: Date;
  lease_until: Date | null;
  lease_owner: string | null;
  created_at: Date;
  finished_at: Date | null;
  last_http_status: number | null;
  last_code: string | null;
  last_error: string | null;
  note: string | null;
}

export interface AttemptRow {
  tenant_id: string;
  transaction_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  http_status: number | null;
  outcome: string;
  response_body: string | null;
  error: string | null;
  worker: string | null;
}

export interface NewCall {
  tenant_id: string;
  transaction_id: string;
  bet_id: string;
  user_id: string;
  op: string;
  amount: string;
  bonus_flag: boolean;
  extra: Record<string, unknown>;
  secret_enc: string | null;
  only_if_reserved: boolean;
  placement_guard: boolean;
  status: 'pending' | 'sending';
  now: Date;
  /** When it may first be sent (default: now). */
  due_at: Date | null;
  lease_until: Date | null;
  lease_owner: string | null;
}

/**
 * Inserts a call with the next sequence number of its bet (the upsert locks the bet's sequence
 * row until the caller commits) and notifies the workers at commit. Returns undefined when the
 * tenant has no wallet configured.
 */
export async function insertCall(db: Queryable, c: NewCall): Promise<{ seq: number; amount_unit: string } | undefined> {
  const { rows } = await db.query<{ seq: number; amount_unit: string }>(
    `WITH cfg AS (SELECT amount_unit FROM wallet_configs WHERE tenant_id = $1),
     s AS (INSERT INTO wallet_bet_sequences (tenant_id, bet_id, last_seq)
           SELECT $1, $3, 1 FROM cfg
           ON CONFLICT (tenant_id, bet_id) DO UPDATE SET last_seq = wallet_bet_sequences.last_seq + 1
           RETURNING last_seq),
     ins AS (INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag,
                                       extra, secret_enc, only_if_reserved, status, next_attempt_at, created_at,
                                       lease_until, lease_owner, placement_guard)
             SELECT $1, $2, $3, s.last_seq, $4, $5, $6, cfg.amount_unit, $7, $8, $9, $10, $11, coalesce($16::timestamptz, $12), $12,
                    $13, $14, $15
               FROM s, cfg
             RETURNING seq, amount_unit)
     SELECT ins.seq, ins.amount_unit, pg_notify('wallet_calls', $1::text) AS notified FROM ins`,
    [c.tenant_id, c.transaction_id, c.bet_id, c.user_id, c.op, c.amount, c.bonus_flag, JSON.stringify(c.extra),
      c.secret_enc, c.only_if_reserved, c.status, c.now, c.lease_until, c.lease_owner, c.placement_guard, c.due_at],
  );
  return rows[0];
}

/** The status of a bet's reserve call, or undefined when the bet has none. */
export async function reserveStatus(db: Queryable, tenantId: string, betId: string): Promise<CallRow['status'] | undefined> {
  const { rows } = await db.query<{ status: CallRow['status'] }>(
    "SELECT status FROM wallet_calls WHERE tenant_id = $1 AND bet_id = $2 AND op = 'reserve' ORDER BY seq LIMIT 1",
    [tenantId, betId],
  );
  return rows[0]?.status;
}

/** The calls of a bet after a given sequence, oldest first. */
export async function laterCalls(db: Queryable, tenantId: string, betId: string, afterSeq: number): Promise<CallRow[]> {
  const { rows } = await db.query<CallRow>(
    'SELECT * FROM wallet_calls WHERE tenant_id = $1 AND bet_id = $2 AND seq > $3 ORDER BY seq',
    [tenantId, betId, afterSeq],
  );
  return rows;
}

/** Wakes the delivery workers of every process (LISTEN wallet_calls); delivered at commit. */
export async function notifyWorkers(db: Queryable, tenantId: string): Promise<void> {
  await db.query("SELECT pg_notify('wallet_calls', $1)", [tenantId]);
}

/**
 * Placement queued its next call for the bet in time: the placement guard (a pending refundBet)
 * is not needed. Returns 'released', 'none' (the bet has no guard), or 'fired' (the guard is
 * already being sent or was sent: the reservation is being released, the bet cannot be taken).
 */
export async function releasePlacementGuard(db: Queryable, tenantId: string, betId: string, now: Date): Promise<'released' | 'none' | 'fired'> {
  // FOR UPDATE reads the guard's latest state (a worker claiming it concurrently has committed or
  // skips it as locked), so "pending" here cannot be sent before this transaction ends.
  const { rows } = await db.query<{ transaction_id: string; status: CallRow['status']; attempts: number }>(
    'SELECT transaction_id, status, attempts FROM wallet_calls WHERE tenant_id = $1 AND bet_id = $2 AND placement_guard FOR UPDATE',
    [tenantId, betId],
  );
  const guard = rows[0];
  if (!guard || guard.status === 'skipped') return 'none';
  // A pending guard with attempts was sent and failed retryably: the wallet may have applied it.
  if (guard.status !== 'pending' || guard.attempts > 0) return 'fired';
  await db.query(
    `UPDATE wallet_calls SET status = 'skipped', finished_at = $3,
            note = 'not sent: placement queued its next call in time (placement guard)'
      WHERE tenant_id = $1 AND transaction_id = $2`,
    [tenantId, guard.transaction_id, now],
  );
  return 'released';
}

/** The new state of a call after one delivery round. */
export interface CallResult {
  tenant_id: string;
  transaction_id: string;
  owner: string;
  status: 'pending' | 'delivered' | 'refused' | 'failed' | 'skipped';
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
 * SQL that appends attempts, given as ten arrays from parameter $first on, to their calls' logs.
 * Each is numbered after the last attempt already logged for its call (the given numbers only
 * order a sender's own attempts): a sender that lost its lease records its asks after the
 * rescue's, instead of colliding with the rescue's numbers and being dropped.
 */
export function appendAttemptsSql(first: number): string {
  const p = (k: number) => `$${first + k}`;
  return `INSERT INTO wallet_call_attempts (tenant_id, transaction_id, attempt, started_at, duration_ms, http_status,
                                         outcome, response_body, error, worker)
       SELECT u.tenant_id, u.transaction_id,
              coalesce((SELECT max(x.attempt) FROM wallet_call_attempts x WHERE x.tenant_id = u.tenant_id AND x.transaction_id = u.transaction_id), 0)
                + row_number() OVER (PARTITION BY u.tenant_id, u.transaction_id ORDER BY u.attempt),
              u.started_at, u.duration_ms, u.http_status, u.outcome, u.response_body, u.error, u.worker
         FROM unnest((SELECT ${p(0)}::uuid[]), ${p(1)}::uuid[], ${p(2)}::int[], ${p(3)}::timestamptz[], ${p(4)}::int[], ${p(5)}::int[],
                     ${p(6)}::text[], ${p(7)}::text[], ${p(8)}::text[], ${p(9)}::text[])
              AS u(tenant_id, transaction_id, attempt, started_at, duration_ms, http_status, outcome, response_body, error, worker)
       ON CONFLICT DO NOTHING`;
}

/**
 * Records attempts and moves the calls to their new state, in one statement. A call whose lease
 * this sender no longer holds (it expired and was taken over) keeps its state; its attempt is
 * still recorded. Returns the calls that moved, each with whether a later call of its bet is open
 * (claimable now, if this one was delivered and that one is pending).
 *
 * Its first array, and appendAttemptsSql's, is read through a sub-select, which hides the batch's
 * length from the planner: a plan made for the values is then no cheaper than the generic one,
 * which PostgreSQL keeps after five executions. Seen by the planner, the length made it plan this
 * statement anew on every execution, at a cost close to running it
 * (docs/performance-bets-2026-11-25.md).
 */
export async function complete(db: Queryable, results: CallResult[], attempts: AttemptRecord[]): Promise<{ tenant_id: string; transaction_id: string; next_waiting: boolean }[]> {
  const { rows } = await db.query<{ tenant_id: string; transaction_id: string; next_waiting: boolean }>({
    name: 'wallet_complete',
    text: `WITH a AS (${appendAttemptsSql(1)})
     UPDATE wallet_calls c
        SET status = r.status, failures = r.failures, attempts = r.attempts, next_attempt_at = r.next_at,
            finished_at = r.finished_at, last_http_status = r.http_status, last_code = r.code,
            last_error = r.error, lease_until = NULL, lease_owner = NULL,
            -- The user's placement token (reserve) is kept only while the call may still be sent.
            secret_enc = CASE WHEN r.status IN ('delivered', 'refused', 'skipped') THEN NULL ELSE c.secret_enc END
       FROM unnest((SELECT $11::uuid[]), $12::uuid[], $13::text[], $14::text[], $15::int[], $16::int[], $17::timestamptz[],
                   $18::timestamptz[], $19::int[], $20::text[], $21::text[])
            AS r(tenant_id, transaction_id, owner, status, failures, attempts, next_at, finished_at, http_status, code, error)
      WHERE c.tenant_id = r.tenant_id AND c.transaction_id = r.transaction_id
        AND c.status = 'sending' AND c.lease_owner = r.owner
      RETURNING c.tenant_id, c.transaction_id,
                -- The open calls' index (wallet_calls_open), probed per row as the claim does.
                EXISTS (SELECT 1 FROM wallet_calls n WHERE n.tenant_id = c.tenant_id AND n.bet_id = c.bet_id AND n.seq > c.seq
                           AND n.status IN ('pending', 'sending', 'failed')) AS next_waiting`,
    values: [
      col(attempts, 'tenant_id'), col(attempts, 'transaction_id'), col(attempts, 'attempt'), col(attempts, 'started_at'),
      col(attempts, 'duration_ms'), col(attempts, 'http_status'), col(attempts, 'outcome'), col(attempts, 'response_body'),
      col(attempts, 'error'), col(attempts, 'worker'),
      col(results, 'tenant_id'), col(results, 'transaction_id'), col(results, 'owner'), col(results, 'status'),
      col(results, 'failures'), col(results, 'attempts'), col(results, 'next_attempt_at'), col(results, 'finished_at'),
      col(results, 'last_http_status'), col(results, 'last_code'), col(results, 'last_error'),
    ],
  });
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
     SELECT tenant_id, transaction_id,
            coalesce((SELECT max(attempt) FROM wallet_call_attempts WHERE tenant_id = $1 AND transaction_id = $2), 0) + 1, $3, 0,
            'interrupted', 'lease expired: placement stopped before learning the outcome; asking again', lease_owner
       FROM wallet_calls WHERE tenant_id = $1 AND transaction_id = $2
     ON CONFLICT DO NOTHING`,
    [tenantId, transactionId, now],
  );
}
