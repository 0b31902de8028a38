// SQL of the outbox rows a placement writes around its reserve, each in one statement: the
// reserve's row (with the wallet's configuration read in the same statement), and the record of
// its success with the bet's next call and its placement guard, in the transaction taking the bet.
import type { Queryable } from '../../../db/pool.ts';
import type { WalletConfigRow } from '../config/wallet-config.queries.ts';
import { appendAttemptsSql, type AttemptRecord, type CallResult, type NewCall } from './outbox.queries.ts';

/**
 * The caller's own writes, run first in the statement that writes reserves' rows, so that both
 * commit together (placement stores its pending bets so). `with` is a list of common table
 * expressions over parameters $1..$n of `values`, whose last is named `opened`, with a column
 * `bet_id`: one row for each bet whose writes were done (for a bet without one, nothing else is
 * written). `name` names the text: the same name, the same text.
 */
export interface OpeningSql {
  name: string;
  with: string;
  values: unknown[];
}

/** What the reserve's statement found: `reserve` is undefined when no wallet is configured. */
export interface OpenedReserve {
  opened: boolean;
  reserve?: WalletConfigRow & { seq: number | null };
}

/**
 * Writes the caller's opening (if any) and reserves that each open their bet's sequence, leased to
 * their senders, in one statement, and returns each tenant's wallet configuration with them (the
 * senders need both), in the order of `calls`. No wallet configured: only the opening is written.
 * A bet that has calls already (a reserve must be the first): `seq` is null and no call is written.
 * No workers are woken: the rows start leased to their senders.
 */
export async function insertReserves(db: Queryable, calls: NewCall[], opening?: OpeningSql): Promise<OpenedReserve[]> {
  const n = opening?.values.length ?? 0;
  const own = (sql: string) => sql.replace(/\$(\d+)/g, (_, k: string) => `$${Number(k) + n}`);
  const each = <T>(get: (c: NewCall) => T) => calls.map(get);
  const { rows } = await db.query<{ opened: boolean; opened_count?: number } & { [K in keyof WalletConfigRow]: WalletConfigRow[K] | null } & { seq: number | null }>({
    name: `wallet_insert_reserves_${opening?.name ?? 'plain'}`,
    text: `WITH ${opening ? `${opening.with},` : ''}
     ${own(`c AS (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::numeric[], $7::bool[], $8::jsonb[],
                                     $9::text[], $10::bool[], $11::text[], $12::timestamptz[], $13::timestamptz[], $14::text[], $15::bool[]) WITH ORDINALITY
             AS c(tenant_id, transaction_id, bet_id, user_id, op, amount, bonus_flag, extra, secret_enc, only_if_reserved, status, now,
                  lease_until, lease_owner, placement_guard, i)
           ${opening ? 'WHERE c.bet_id IN (SELECT bet_id FROM opened)' : ''}),
     cfg AS (SELECT * FROM wallet_configs WHERE tenant_id IN (SELECT tenant_id FROM c)),
     s AS (INSERT INTO wallet_bet_sequences (tenant_id, bet_id, last_seq)
           SELECT c.tenant_id, c.bet_id, 1 FROM c WHERE c.tenant_id IN (SELECT tenant_id FROM cfg)
           ON CONFLICT (tenant_id, bet_id) DO NOTHING
           RETURNING tenant_id, bet_id, last_seq),
     ins AS (INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag,
                                       extra, secret_enc, only_if_reserved, status, next_attempt_at, created_at,
                                       lease_until, lease_owner, placement_guard)
             SELECT c.tenant_id, c.transaction_id, c.bet_id, s.last_seq, c.user_id, c.op, c.amount, cfg.amount_unit, c.bonus_flag,
                    c.extra, c.secret_enc, c.only_if_reserved, c.status, c.now, c.now, c.lease_until, c.lease_owner, c.placement_guard
               FROM c JOIN s ON s.tenant_id = c.tenant_id AND s.bet_id = c.bet_id JOIN cfg ON cfg.tenant_id = c.tenant_id
             RETURNING transaction_id, seq)
     SELECT c.i IS NOT NULL AS opened, cfg.*, ins.seq${opening ? ', (SELECT count(*) FROM opened) AS opened_count' : ''}
       FROM unnest($2::uuid[]) WITH ORDINALITY AS a(transaction_id, i)
       LEFT JOIN c ON c.i = a.i LEFT JOIN cfg ON cfg.tenant_id = c.tenant_id LEFT JOIN ins ON ins.transaction_id = a.transaction_id
      ORDER BY a.i`)}`,
    values: [...(opening?.values ?? []), each((c) => c.tenant_id), each((c) => c.transaction_id), each((c) => c.bet_id), each((c) => c.user_id),
      each((c) => c.op), each((c) => c.amount), each((c) => c.bonus_flag), each((c) => JSON.stringify(c.extra)), each((c) => c.secret_enc),
      each((c) => c.only_if_reserved), each((c) => c.status), each((c) => c.now), each((c) => c.lease_until), each((c) => c.lease_owner),
      each((c) => c.placement_guard)],
  });
  // opened_count makes the statement read all of `opened`, whatever it computes (the opening's notifications).
  return rows.map(({ opened, seq, opened_count: _, ...config }) => ({ opened, ...(config.tenant_id !== null && { reserve: { ...(config as WalletConfigRow), seq } }) }));
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
  /** A sender's lease: the next call is written already `sending`, for that sender to send at commit. Null: `pending`, for the workers. */
  lease_owner: string | null;
  lease_until: Date | null;
  /**
   * The version of the wallet configuration the sender holds (WalletEndpoint.version): the call
   * is written leased to it only while that is still the tenant's configuration, `pending` otherwise.
   */
  lease_config_version: string | null;
}

/**
 * Records reserves' successes (their attempts, the rows delivered) and queues each bet's next call
 * behind its reserve, with its placement guard before it already released (skipped): all in one
 * statement of the transaction that takes the bets, so a guard never has a window to cover. As
 * complete() does, it records the attempts whatever happens, and moves a reserve only while its
 * sender still holds its lease; the next call is queued only then. Returns, for each reserve in
 * order, whether it moved and its next call's sequence (null when the tenant has no wallet any
 * more), amount unit and status (`sending` when written leased to its sender). Workers wake at
 * commit for the tenants of calls written `pending`.
 */
export async function recordReservesAndQueueNext(db: Queryable, calls: NextCall[]): Promise<Array<{ recorded: boolean; seq: number | null; amount_unit: 'dollars' | 'cents' | null; status: 'pending' | 'sending' | null }>> {
  const attempts = calls.flatMap((c) => c.attempts);
  const col = <K extends keyof AttemptRecord>(key: K) => attempts.map((a) => a[key]);
  const each = <T>(get: (c: NextCall) => T) => calls.map(get);
  const { rows } = await db.query<{ recorded: boolean; seq: number | null; amount_unit: 'dollars' | 'cents' | null; status: 'pending' | 'sending' | null }>({
    name: 'wallet_record_reserves_queue_next',
    text: `WITH a AS (${appendAttemptsSql(1)}),
     u AS (SELECT * FROM unnest($11::uuid[], $12::uuid[], $13::text[], $14::int[], $15::timestamptz[], $16::int[], $17::text[], $18::text[],
                                $19::timestamptz[], $20::uuid[], $21::uuid[], $22::uuid[], $23::numeric[], $24::bool[], $25::uuid[], $26::text[],
                                $27::numeric[], $28::bool[], $29::jsonb[], $30::timestamptz[], $31::text[], $32::timestamptz[],
                                $33::timestamptz[]) WITH ORDINALITY
             AS u(tenant_id, reserve_id, owner, attempts, finished_at, http_status, code, error, next_attempt_at, bet_id, user_id,
                  guard_id, reserve_amount, reserve_bonus, next_id, op, amount, bonus_flag, extra, now, next_owner, next_lease_until,
                  next_config_at, i)),
     rec AS (
       UPDATE wallet_calls w SET status = 'delivered', failures = 0, attempts = u.attempts, next_attempt_at = u.next_attempt_at,
              finished_at = u.finished_at, last_http_status = u.http_status, last_code = u.code, last_error = u.error,
              lease_until = NULL, lease_owner = NULL, secret_enc = NULL
         FROM u
        WHERE w.tenant_id = u.tenant_id AND w.transaction_id = u.reserve_id AND w.status = 'sending' AND w.lease_owner = u.owner
       RETURNING u.i),
     s AS (UPDATE wallet_bet_sequences q SET last_seq = q.last_seq + 2
             FROM u WHERE q.tenant_id = u.tenant_id AND q.bet_id = u.bet_id AND u.i IN (SELECT i FROM rec)
           RETURNING u.i, q.last_seq),
     ins AS (INSERT INTO wallet_calls (tenant_id, transaction_id, bet_id, seq, user_id, op, amount, amount_unit, bonus_flag,
                                       extra, only_if_reserved, placement_guard, status, next_attempt_at, created_at, finished_at, note,
                                       lease_owner, lease_until)
             SELECT u.tenant_id, g.transaction_id, u.bet_id, s.last_seq - 2 + g.pos, u.user_id, g.op, g.amount, cfg.amount_unit, g.bonus_flag,
                    g.extra, g.guard, g.guard, g.status, u.now, u.now, CASE WHEN g.guard THEN u.now END,
                    CASE WHEN g.guard THEN 'not sent: placement queued its next call in time (placement guard)' END,
                    g.lease_owner, g.lease_until
               FROM u JOIN s ON s.i = u.i JOIN wallet_configs cfg ON cfg.tenant_id = u.tenant_id,
                    -- Leased to its sender only if the sender holds the tenant's configuration as it is now:
                    -- one read before a change would send the call where the bet's reserve did not go.
                    LATERAL (SELECT u.next_owner IS NOT NULL AND u.next_config_at = date_trunc('milliseconds', cfg.updated_at) AS leased) l,
                    LATERAL (VALUES (1, u.guard_id, 'refundBet', u.reserve_amount, u.reserve_bonus, '{}'::jsonb, true, 'skipped', NULL, NULL),
                                    (2, u.next_id, u.op, u.amount, u.bonus_flag, u.extra, false,
                                     CASE WHEN l.leased THEN 'sending' ELSE 'pending' END,
                                     CASE WHEN l.leased THEN u.next_owner END, CASE WHEN l.leased THEN u.next_lease_until END))
                      AS g(pos, transaction_id, op, amount, bonus_flag, extra, guard, status, lease_owner, lease_until)
             RETURNING tenant_id, transaction_id, seq, amount_unit, status),
     woken AS (SELECT count(pg_notify('wallet_calls', t::text)) AS n FROM (SELECT DISTINCT tenant_id AS t FROM ins WHERE status = 'pending') AS x)
     SELECT EXISTS (SELECT 1 FROM rec WHERE rec.i = u.i) AS recorded, nx.seq, nx.amount_unit, nx.status, (SELECT n FROM woken) AS woken
       FROM u LEFT JOIN ins nx ON nx.tenant_id = u.tenant_id AND nx.transaction_id = u.next_id
      ORDER BY u.i`,
    values: [col('tenant_id'), col('transaction_id'), col('attempt'), col('started_at'), col('duration_ms'), col('http_status'),
      col('outcome'), col('response_body'), col('error'), col('worker'),
      each((c) => c.reserve.tenant_id), each((c) => c.reserve.transaction_id), each((c) => c.reserve.owner), each((c) => c.reserve.attempts),
      each((c) => c.reserve.finished_at), each((c) => c.reserve.last_http_status), each((c) => c.reserve.last_code), each((c) => c.reserve.last_error),
      each((c) => c.reserve.next_attempt_at), each((c) => c.bet_id), each((c) => c.user_id), each((c) => c.guard_transaction_id),
      each((c) => c.reserve_amount), each((c) => c.reserve_bonus_flag), each((c) => c.transaction_id), each((c) => c.op), each((c) => c.amount),
      each((c) => c.bonus_flag), each((c) => JSON.stringify(c.extra)), each((c) => c.now), each((c) => c.lease_owner), each((c) => c.lease_until),
      each((c) => c.lease_config_version)],
  });
  return rows.map(({ recorded, seq, amount_unit, status }) => ({ recorded, seq, amount_unit, status }));
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
