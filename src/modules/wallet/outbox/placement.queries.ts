// SQL of the outbox rows a placement writes around its reserve, each in one statement: the
// reserve's row (with the wallet's configuration read in the same statement), and the record of
// its success with the bet's next call and its placement guard, in the transaction taking the bet.
import type { Queryable } from '../../../db/pool.ts';
import type { WalletConfigRow } from '../config/wallet-config.queries.ts';
import { appendAttemptsSql, type AttemptRecord, type CallResult, type NewCall } from './outbox.queries.ts';

/**
 * The caller's own writes, run first in the statement that writes a reserve's row, so that both
 * commit together (placement stores its pending bet so). `with` is a list of common table
 * expressions over parameters $1..$n of `values`, whose last is named `opened`: one row when the
 * caller's writes were done, none when not (then nothing else is written). `name` names the text.
 */
export interface OpeningSql {
  name: string;
  with: string;
  values: unknown[];
}

const NOTHING_TO_OPEN: OpeningSql = { name: 'plain', with: 'opened AS (SELECT 1)', values: [] };

/** What the reserve's statement found: `reserve` is undefined when no wallet is configured. */
export interface OpenedReserve {
  opened: boolean;
  reserve?: WalletConfigRow & { seq: number | null };
}

/**
 * Writes the caller's opening (if any) and a reserve that opens its bet's sequence, leased to its
 * sender, in one statement, and returns the tenant's wallet configuration with it (the sender
 * needs both). No wallet configured: only the opening is written. The bet has calls already (a
 * reserve must be the first): `seq` is null and no call is written. No workers are woken: the
 * row starts leased to its sender.
 */
export async function insertReserve(db: Queryable, c: NewCall, opening: OpeningSql = NOTHING_TO_OPEN): Promise<OpenedReserve> {
  const n = opening.values.length;
  const own = (sql: string) => sql.replace(/\$(\d+)/g, (_, k: string) => `$${Number(k) + n}`);
  const { rows } = await db.query<{ opened: number } & { [K in keyof WalletConfigRow]: WalletConfigRow[K] | null } & { seq: number | null }>({
    name: `wallet_insert_reserve_${opening.name}`,
    text: `WITH ${opening.with},
     ${own(`cfg AS (SELECT * FROM wallet_configs WHERE tenant_id = $1 AND EXISTS (SELECT 1 FROM opened)),
     s AS (INSERT INTO wallet_bet_sequences (tenant_id, bet_id, last_seq)
           SELECT $1, $3, 1 FROM cfg
           ON CONFLICT (tenant_id, bet_id) DO NOTHING
           RETURNING last_seq),
     ins AS (INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag,
                                       extra, secret_enc, only_if_reserved, status, next_attempt_at, created_at,
                                       lease_until, lease_owner, placement_guard)
             SELECT $1, $2, $3, s.last_seq, $4, $5, $6, cfg.amount_unit, $7, $8, $9, $10, $11, $12, $12, $13, $14, $15
               FROM s, cfg
             RETURNING seq)`)}
     SELECT (SELECT count(*) FROM opened)::int AS opened, cfg.*, ins.seq FROM (SELECT 1) AS one LEFT JOIN cfg ON true LEFT JOIN ins ON true`,
    values: [...opening.values, c.tenant_id, c.transaction_id, c.bet_id, c.user_id, c.op, c.amount, c.bonus_flag, JSON.stringify(c.extra),
      c.secret_enc, c.only_if_reserved, c.status, c.now, c.lease_until, c.lease_owner, c.placement_guard],
  });
  const { opened, seq, ...config } = rows[0]!;
  return { opened: opened > 0, ...(config.tenant_id !== null && { reserve: { ...(config as WalletConfigRow), seq } }) };
}

/** The reserve's success as recorded, and the call queued behind it with the guard it copies. */
export interface NextCall {
  reserve: CallResult & { status: 'delivered' };
  attempts: AttemptRecord[];
  bet_id: string;
  user_id: string;
  /** The guard's transactionId, and the refundBet of the reserve's amount it would have sent. */
  guard_transaction_id: string;
  reserve_amount: string;
  reserve_bonus_flag: boolean;
  transaction_id: string;
  op: string;
  amount: string;
  bonus_flag: boolean;
  extra: Record<string, unknown>;
  now: Date;
}

/**
 * Records a reserve's success (its attempts, the row delivered) and queues the bet's next call
 * behind it, with its placement guard before it already released (skipped): all in one statement
 * of the transaction that takes the bet, so the guard never has a window to cover. As complete()
 * does, it records the attempts whatever happens, and moves the reserve only while this sender
 * still holds its lease; the next call is queued only then. Returns whether the reserve moved, and
 * the next call's sequence (null when the tenant has no wallet any more). Workers wake at commit.
 */
export async function recordReserveAndQueueNext(db: Queryable, c: NextCall): Promise<{ recorded: boolean; seq: number | null }> {
  const r = c.reserve;
  const col = <K extends keyof AttemptRecord>(key: K) => c.attempts.map((a) => a[key]);
  const { rows } = await db.query<{ recorded: boolean; seq: number | null }>({
    name: 'wallet_record_reserve_queue_next',
    text: `WITH a AS (${appendAttemptsSql(13)}),
     rec AS (
       UPDATE wallet_calls SET status = 'delivered', failures = 0, attempts = $23, next_attempt_at = $30, finished_at = $24,
              last_http_status = $25, last_code = $26, last_error = $27, lease_until = NULL, lease_owner = NULL, secret_enc = NULL
        WHERE tenant_id = $1 AND transaction_id = $28 AND status = 'sending' AND lease_owner = $29
       RETURNING tenant_id),
     s AS (UPDATE wallet_bet_sequences SET last_seq = last_seq + 2
            WHERE tenant_id = $1 AND bet_id = $2 AND EXISTS (SELECT 1 FROM rec) RETURNING last_seq),
     ins AS (INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag,
                                       extra, only_if_reserved, placement_guard, status, next_attempt_at, created_at, finished_at, note)
             SELECT $1, g.transaction_id, $2, s.last_seq - 2 + g.pos, $3, g.op, g.amount, cfg.amount_unit, g.bonus_flag,
                    g.extra, g.guard, g.guard, g.status, $11, $11, CASE WHEN g.guard THEN $11::timestamptz END,
                    CASE WHEN g.guard THEN 'not sent: placement queued its next call in time (placement guard)' END
               FROM s, wallet_configs cfg,
                    (VALUES (1, $4::uuid, 'refundBet', $5::numeric, $6::bool, '{}'::jsonb, true, 'skipped'),
                            (2, $7::uuid, $8::text, $9::numeric, $10::bool, $12::jsonb, false, 'pending'))
                      AS g(pos, transaction_id, op, amount, bonus_flag, extra, guard, status)
              WHERE cfg.tenant_id = $1
             RETURNING seq, placement_guard)
     SELECT EXISTS (SELECT 1 FROM rec) AS recorded, (SELECT seq FROM ins WHERE NOT placement_guard) AS seq,
            CASE WHEN EXISTS (SELECT 1 FROM ins) THEN pg_notify('wallet_calls', $1::text) END AS notified`,
    values: [r.tenant_id, c.bet_id, c.user_id, c.guard_transaction_id, c.reserve_amount, c.reserve_bonus_flag,
      c.transaction_id, c.op, c.amount, c.bonus_flag, c.now, JSON.stringify(c.extra),
      col('tenant_id'), col('transaction_id'), col('attempt'), col('started_at'), col('duration_ms'), col('http_status'),
      col('outcome'), col('response_body'), col('error'), col('worker'),
      r.attempts, r.finished_at, r.last_http_status, r.last_code, r.last_error, r.transaction_id, r.owner, r.next_attempt_at],
  });
  return rows[0]!;
}

/** The reserve's row locked for this transaction: its status and who holds its lease, if anyone. */
export async function lockReserveRow(db: Queryable, tenantId: string, transactionId: string): Promise<{ status: string; lease_owner: string | null } | undefined> {
  const { rows } = await db.query<{ status: string; lease_owner: string | null }>(
    "SELECT status, lease_owner FROM wallet_calls WHERE tenant_id = $1 AND transaction_id = $2 AND op = 'reserve' FOR UPDATE",
    [tenantId, transactionId],
  );
  return rows[0];
}

/**
 * A reserve the rescue requeued (its sender's lease ran out) and no worker has claimed yet, whose
 * sender did hear the wallet's success: recorded delivered with that answer, so the refund queued
 * behind it goes out without asking the wallet again (workers wake at once). False when a worker
 * has it already, or it was settled otherwise: then the worker's own ask decides.
 */
export async function deliverRequeuedReserve(db: Queryable, r: CallResult): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE wallet_calls SET status = 'delivered', attempts = attempts + $3, finished_at = $4, last_http_status = $5,
            last_code = $6, last_error = $7, lease_until = NULL, lease_owner = NULL, secret_enc = NULL
      WHERE tenant_id = $1 AND transaction_id = $2 AND op = 'reserve' AND status = 'pending'
     RETURNING pg_notify('wallet_calls', tenant_id::text)`,
    [r.tenant_id, r.transaction_id, r.attempts, r.finished_at, r.last_http_status, r.last_code, r.last_error],
  );
  return rows.length > 0;
}
