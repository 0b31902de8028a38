// SQL of the operator controls: a bet's calls and attempts, parked calls, retry, resolve, outbox stats.
import type { Queryable } from '../../../db/pool.ts';
import type { AttemptRow, CallRow } from '../outbox/outbox.queries.ts';

/** The calls of a bet, of every tenant or (tenantId given) of that tenant only. */
export async function callsOfBet(db: Queryable, betId: string, tenantId: string | null = null): Promise<CallRow[]> {
  const { rows } = await db.query<CallRow>(
    'SELECT * FROM wallet_calls WHERE bet_id = $1 AND ($2::uuid IS NULL OR tenant_id = $2) ORDER BY tenant_id, seq',
    [betId, tenantId],
  );
  return rows;
}

/** Whether the tenant has this bet (a bet of another tenant is not its). */
export async function betExists(db: Queryable, tenantId: string, betId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM bets WHERE tenant_id = $1 AND bet_id = $2', [tenantId, betId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The calls of several bets (tenant and bet) with their attempts, in one statement: each bet's
 * calls in sequence order, each call's attempts in order. The attempts come as a JSON array, their
 * instants as epoch milliseconds (floor: as node-postgres truncates microseconds), Dates again here.
 */
export async function callsOfBetKeys(db: Queryable, keys: { tenant_id: string; bet_id: string }[]): Promise<Array<CallRow & { attempt_log: AttemptRow[] }>> {
  if (!keys.length) return [];
  const { rows } = await db.query<CallRow & { attempt_json: Array<Omit<AttemptRow, 'started_at'> & { started_at: number }> | null }>({
    name: 'wallet_calls_of_bets',
    text: `SELECT w.*,
             (SELECT json_agg(json_build_object('tenant_id', a.tenant_id, 'transaction_id', a.transaction_id, 'attempt', a.attempt,
                       'started_at', floor(extract(epoch FROM a.started_at) * 1000), 'duration_ms', a.duration_ms, 'http_status', a.http_status,
                       'outcome', a.outcome, 'response_body', a.response_body, 'error', a.error, 'worker', a.worker) ORDER BY a.attempt)
                FROM wallet_call_attempts a WHERE a.tenant_id = w.tenant_id AND a.transaction_id = w.transaction_id) AS attempt_json
           FROM wallet_calls w
           JOIN unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, bet_id) USING (tenant_id, bet_id)
          ORDER BY w.tenant_id, w.bet_id, w.seq`,
    values: [keys.map((k) => k.tenant_id), keys.map((k) => k.bet_id)],
  });
  return rows.map(({ attempt_json: attempts, ...call }) => ({ ...call, attempt_log: (attempts ?? []).map((a) => ({ ...a, started_at: new Date(a.started_at) })) }));
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

/** A call by its id, of any tenant or (tenantId given) of that tenant only. */
export async function findCall(db: Queryable, transactionId: string, tenantId: string | null = null): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    'SELECT * FROM wallet_calls WHERE transaction_id = $1 AND ($2::uuid IS NULL OR tenant_id = $2)',
    [transactionId, tenantId],
  );
  return rows[0];
}

export async function failedCalls(db: Queryable, tenantId: string | null, limit: number): Promise<{ total: number; rows: CallRow[] }> {
  // The window's count is taken before LIMIT: every parked call, however many are listed.
  const { rows } = await db.query<CallRow & { total: number }>(
    `SELECT *, count(*) OVER ()::int AS total FROM wallet_calls WHERE status = 'failed' AND ($1::uuid IS NULL OR tenant_id = $1)
      ORDER BY finished_at, tenant_id, transaction_id LIMIT $2`,
    [tenantId, limit],
  );
  const total = rows[0]?.total ?? 0;
  for (const row of rows) delete (row as Partial<typeof row>).total;
  return { total, rows };
}

/** A call held behind a parked one: a later call of its bet, waiting to be sent. */
export interface HeldCall {
  tenant_id: string;
  bet_id: string;
  transaction_id: string;
  seq: number;
  op: string;
  amount: string;
  transaction_type: string | null;
}

/** The calls of each bet waiting behind the given ones (a parked call holds every later call of its bet), in order. */
export async function heldBehind(db: Queryable, calls: Array<Pick<CallRow, 'tenant_id' | 'bet_id' | 'seq'>>): Promise<HeldCall[]> {
  if (!calls.length) return [];
  const { rows } = await db.query<HeldCall>(
    `SELECT n.tenant_id, n.bet_id, n.transaction_id, n.seq, n.op, n.amount, n.extra->>'transactionType' AS transaction_type
       FROM unnest($1::uuid[], $2::uuid[], $3::int[]) AS k(tenant_id, bet_id, seq)
       JOIN wallet_calls n ON n.tenant_id = k.tenant_id AND n.bet_id = k.bet_id AND n.seq > k.seq AND n.status = 'pending'
      ORDER BY n.tenant_id, n.bet_id, n.seq`,
    [calls.map((c) => c.tenant_id), calls.map((c) => c.bet_id), calls.map((c) => c.seq)],
  );
  return rows;
}

/**
 * Re-queues a call: due now, with a fresh retry budget. Only a parked call moves, or one waiting
 * after a failure for its next attempt (not one in flight: `sending` is the worker's).
 */
export async function requeueCall(db: Queryable, tenantId: string, transactionId: string, now: Date): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    `UPDATE wallet_calls SET status = 'pending', failures = 0, next_attempt_at = $3, finished_at = NULL
      WHERE tenant_id = $1 AND transaction_id = $2 AND (status = 'failed' OR (status = 'pending' AND failures > 0))
      RETURNING *`,
    [tenantId, transactionId, now],
  );
  return rows[0];
}

/** Closes a parked call without delivering it (the operator settled it by other means); its sealed user token goes with it. */
export async function resolveCall(db: Queryable, tenantId: string, transactionId: string, now: Date, note: string): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    `UPDATE wallet_calls SET status = 'resolved', finished_at = $3, note = $4, secret_enc = NULL
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
