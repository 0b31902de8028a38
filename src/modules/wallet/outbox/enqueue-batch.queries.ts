// SQL of the batch writer of the outbox (enqueue-batch.ts): a statement's worth of calls (5,000 by
// default) is checked by one statement and written by another, whatever the number of bets.
import type { Queryable } from '../../../db/pool.ts';

/** One bet of a batch, for the checks: whether the batch refunds it. */
export interface BatchBet {
  tenant_id: string;
  bet_id: string;
  refund: boolean;
}

/** What forbids a batch: a tenant without wallet, a refundBet without delivered reserve, a guard gone out. */
export type BatchProblem =
  | { problem: 'unconfigured'; tenant_id: string; bet_id: null; status: null }
  | { problem: 'no_reservation'; tenant_id: string; bet_id: string; status: string | null }
  | { problem: 'fired'; tenant_id: string; bet_id: string; status: string };

export interface BatchCheck {
  problems: BatchProblem[];
  /** The pending placement guards of the batch's bets, locked: the write releases them. */
  guards: Array<{ tenant_id: string; transaction_id: string }>;
}

/**
 * Checks the bets of a batch before anything is written, and locks their placement guards still
 * open (FOR UPDATE, in the order given) so that none can be claimed and sent before the caller's
 * transaction ends; a released guard is final and needs no lock. No problem: the batch may be
 * written. Each bet is an index probe (LATERAL), so the cost follows the batch, never the table.
 */
export async function checkBatch(db: Queryable, bets: BatchBet[]): Promise<BatchCheck> {
  const { rows } = await db.query<{ problem: BatchProblem['problem'] | 'guard'; tenant_id: string; bet_id: string | null; status: string | null; transaction_id: string | null }>(
    `WITH k AS (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bool[]) AS k(tenant_id, bet_id, refund)),
     guards AS (
       SELECT k.tenant_id, k.bet_id, g.transaction_id, g.status, g.attempts
         FROM k CROSS JOIN LATERAL (
                SELECT transaction_id, status, attempts FROM wallet_calls g
                 WHERE g.tenant_id = k.tenant_id AND g.bet_id = k.bet_id AND g.placement_guard AND g.status <> 'skipped'
                   FOR UPDATE) g)
     SELECT 'unconfigured' AS problem, t.tenant_id, NULL::uuid AS bet_id, NULL AS status, NULL::uuid AS transaction_id
       FROM (SELECT DISTINCT tenant_id FROM k) t
      WHERE NOT EXISTS (SELECT 1 FROM wallet_configs c WHERE c.tenant_id = t.tenant_id)
     UNION ALL
     SELECT 'no_reservation', k.tenant_id, k.bet_id, r.status, NULL
       FROM k LEFT JOIN LATERAL (
              SELECT w.status FROM wallet_calls w
               WHERE w.tenant_id = k.tenant_id AND w.bet_id = k.bet_id AND w.op = 'reserve'
               ORDER BY w.seq LIMIT 1) r ON true
      WHERE k.refund AND r.status IS DISTINCT FROM 'delivered'
     UNION ALL
     SELECT CASE WHEN status = 'pending' AND attempts = 0 THEN 'guard' ELSE 'fired' END, tenant_id, bet_id, status, transaction_id
       FROM guards`,
    [bets.map((b) => b.tenant_id), bets.map((b) => b.bet_id), bets.map((b) => b.refund)],
  );
  const check: BatchCheck = { problems: [], guards: [] };
  for (const { transaction_id, ...row } of rows) {
    if (row.problem === 'guard') check.guards.push({ tenant_id: row.tenant_id, transaction_id: transaction_id! });
    else check.problems.push(row as BatchProblem);
  }
  return check;
}

/** A durable call of a batch; `pos` is its place among the calls of its bet in this statement (1, 2, …). */
export interface BatchCall {
  tenant_id: string;
  transaction_id: string;
  bet_id: string;
  user_id: string;
  op: string;
  amount: string;
  bonus_flag: boolean;
  extra: Record<string, unknown>;
  pos: number;
}

const col = <K extends keyof BatchCall>(calls: BatchCall[], key: K) => calls.map((c) => c[key]);

/**
 * Writes checked calls in one statement: releases the pending placement guards the check locked,
 * moves each bet's sequence on by its number of calls (the upserts lock the sequence rows in key
 * order until commit), and inserts each call at the place `pos` gives it. `notify`: the tenants
 * whose workers to wake at commit. Returns the sequence of each inserted call by transactionId;
 * a call of a tenant without wallet configured is not inserted.
 */
export async function insertBatch(db: Queryable, calls: BatchCall[], guards: BatchCheck['guards'], now: Date, notify: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ transaction_id: string; seq: number }>(
    `WITH i AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::numeric[], $7::bool[], $8::jsonb[], $9::int[])
         AS i(tenant_id, transaction_id, bet_id, user_id, op, amount, bonus_flag, extra, pos)),
     bets AS (SELECT tenant_id, bet_id, max(pos) AS n FROM i GROUP BY tenant_id, bet_id),
     released AS (
       UPDATE wallet_calls g SET status = 'skipped', finished_at = $10,
              note = 'not sent: placement queued its next call in time (placement guard)'
         FROM unnest($12::uuid[], $13::uuid[]) AS r(tenant_id, transaction_id)
        WHERE g.tenant_id = r.tenant_id AND g.transaction_id = r.transaction_id),
     s AS (
       INSERT INTO wallet_bet_sequences AS q (tenant_id, bet_id, last_seq)
       SELECT tenant_id, bet_id, n FROM bets ORDER BY tenant_id, bet_id
       ON CONFLICT (tenant_id, bet_id) DO UPDATE SET last_seq = q.last_seq + excluded.last_seq
       RETURNING q.tenant_id, q.bet_id, q.last_seq),
     ins AS (
       INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag,
                                 extra, status, next_attempt_at, created_at)
       SELECT i.tenant_id, i.transaction_id, i.bet_id, s.last_seq - b.n + i.pos, i.user_id, i.op, i.amount, cfg.amount_unit,
              i.bonus_flag, i.extra, 'pending', $10, $10
         FROM i JOIN bets b USING (tenant_id, bet_id) JOIN s USING (tenant_id, bet_id) JOIN wallet_configs cfg USING (tenant_id)
       RETURNING transaction_id, seq)
     SELECT transaction_id, seq,
            (SELECT count(pg_notify('wallet_calls', t)) FROM unnest($11::text[]) AS t) AS notified
       FROM ins`,
    [col(calls, 'tenant_id'), col(calls, 'transaction_id'), col(calls, 'bet_id'), col(calls, 'user_id'), col(calls, 'op'),
      col(calls, 'amount'), col(calls, 'bonus_flag'), calls.map((c) => JSON.stringify(c.extra)), col(calls, 'pos'), now, notify,
      guards.map((g) => g.tenant_id), guards.map((g) => g.transaction_id)],
  );
  return new Map(rows.map((r) => [r.transaction_id, r.seq]));
}
