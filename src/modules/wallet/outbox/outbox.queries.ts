// SQL of wallet configuration, the outbox writer and the operator listings (calls, failed, retry).
import type { Queryable } from '../../../db/pool.ts';

export interface WalletConfigRow {
  tenant_id: string;
  url: string;
  auth_kind: 'client_credentials' | 'api_key';
  client_id: string | null;
  client_secret_enc: string | null;
  api_key_enc: string | null;
  api_key_header: string | null;
  signing_secret_enc: string | null;
  amount_unit: 'dollars' | 'cents';
  concurrency: number;
  updated_at: Date;
}

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

export async function upsertWalletConfig(db: Queryable, c: Omit<WalletConfigRow, 'updated_at'>): Promise<WalletConfigRow> {
  const { rows } = await db.query<WalletConfigRow>(
    `INSERT INTO wallet_configs (tenant_id, url, auth_kind, client_id, client_secret_enc, api_key_enc, api_key_header,
                                 signing_secret_enc, amount_unit, concurrency)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (tenant_id) DO UPDATE SET url = $2, auth_kind = $3, client_id = $4, client_secret_enc = $5,
       api_key_enc = $6, api_key_header = $7, signing_secret_enc = $8, amount_unit = $9, concurrency = $10,
       updated_at = clock_timestamp()
     RETURNING *`,
    [c.tenant_id, c.url, c.auth_kind, c.client_id, c.client_secret_enc, c.api_key_enc, c.api_key_header,
      c.signing_secret_enc, c.amount_unit, c.concurrency],
  );
  return rows[0]!;
}

export async function findWalletConfig(db: Queryable, tenantId: string): Promise<WalletConfigRow | undefined> {
  const { rows } = await db.query<WalletConfigRow>('SELECT * FROM wallet_configs WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function listWalletConfigs(db: Queryable): Promise<WalletConfigRow[]> {
  const { rows } = await db.query<WalletConfigRow>('SELECT * FROM wallet_configs ORDER BY tenant_id');
  return rows;
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

export async function callsOfBet(db: Queryable, betId: string): Promise<CallRow[]> {
  const { rows } = await db.query<CallRow>('SELECT * FROM wallet_calls WHERE bet_id = $1 ORDER BY tenant_id, seq', [betId]);
  return rows;
}

export async function attemptsOf(db: Queryable, keys: { tenant_id: string; transaction_id: string }[]): Promise<AttemptRow[]> {
  if (!keys.length) return [];
  const { rows } = await db.query<AttemptRow>(
    `SELECT a.* FROM wallet_call_attempts a
       JOIN unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, transaction_id) USING (tenant_id, transaction_id)
      ORDER BY a.transaction_id, a.attempt`,
    [keys.map((k) => k.tenant_id), keys.map((k) => k.transaction_id)],
  );
  return rows;
}

export async function findCall(db: Queryable, transactionId: string): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>('SELECT * FROM wallet_calls WHERE transaction_id = $1', [transactionId]);
  return rows[0];
}

export async function failedCalls(db: Queryable, tenantId: string | null, limit: number): Promise<CallRow[]> {
  const { rows } = await db.query<CallRow>(
    `SELECT * FROM wallet_calls WHERE status = 'failed' AND ($1::uuid IS NULL OR tenant_id = $1)
      ORDER BY finished_at, tenant_id, transaction_id LIMIT $2`,
    [tenantId, limit],
  );
  return rows;
}

/** Re-queues a parked call: due now, with a fresh retry budget. Only a failed call moves. */
export async function requeueCall(db: Queryable, tenantId: string, transactionId: string, now: Date): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    `UPDATE wallet_calls SET status = 'pending', failures = 0, next_attempt_at = $3, finished_at = NULL
      WHERE tenant_id = $1 AND transaction_id = $2 AND status = 'failed'
      RETURNING *`,
    [tenantId, transactionId, now],
  );
  return rows[0];
}

/** Closes a parked call without delivering it (the operator settled it by other means). */
export async function resolveCall(db: Queryable, tenantId: string, transactionId: string, now: Date, note: string): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    `UPDATE wallet_calls SET status = 'resolved', finished_at = $3, note = $4
      WHERE tenant_id = $1 AND transaction_id = $2 AND status = 'failed'
      RETURNING *`,
    [tenantId, transactionId, now, note],
  );
  return rows[0];
}

export interface OutboxStats {
  depth: number;
  oldest: Date | null;
  failed: number;
}

export async function outboxStats(db: Queryable): Promise<OutboxStats> {
  const { rows } = await db.query<{ depth: string; oldest: Date | null; failed: string }>(
    `SELECT (SELECT count(*) FROM wallet_calls WHERE status IN ('pending', 'sending')) AS depth,
            (SELECT min(created_at) FROM wallet_calls WHERE status IN ('pending', 'sending')) AS oldest,
            (SELECT count(*) FROM wallet_calls WHERE status = 'failed') AS failed`,
  );
  const r = rows[0]!;
  return { depth: Number(r.depth), oldest: r.oldest, failed: Number(r.failed) };
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
  const { rows } = await db.query<{ transaction_id: string; status: CallRow['status'] }>(
    'SELECT transaction_id, status FROM wallet_calls WHERE tenant_id = $1 AND bet_id = $2 AND placement_guard FOR UPDATE',
    [tenantId, betId],
  );
  const guard = rows[0];
  if (!guard || guard.status === 'skipped') return 'none';
  if (guard.status !== 'pending') return 'fired';
  await db.query(
    `UPDATE wallet_calls SET status = 'skipped', finished_at = $3,
            note = 'not sent: placement queued its next call in time (placement guard)'
      WHERE tenant_id = $1 AND transaction_id = $2`,
    [tenantId, guard.transaction_id, now],
  );
  return 'released';
}
