// SQL of settlement: the queue of races to settle (settlement_jobs), a race's bets page by page
// under row locks, and the bets' new states written for a whole batch in one statement.
// Tables: src/db/migrations/0009_settlement.sql.
import type { Queryable } from '../../db/pool.ts';
import { BET_UPDATE_NOTIFY, type BetRow, type LegRow } from './betting.queries.ts';

export interface JobRow {
  job_id: string;
  meeting_id: string;
  race_number: number;
  cause: string;
  status: 'pending' | 'done';
  after_tenant: string | null;
  after_bet: string | null;
  bets_seen: number;
  bets_changed: number;
  calls_queued: number;
  problem: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export interface BetKey {
  tenant_id: string;
  bet_id: string;
}

export async function insertJob(db: Queryable, meetingId: number, raceNumber: number, cause: string, now: Date): Promise<string> {
  const { rows } = await db.query<{ job_id: string }>(
    `INSERT INTO settlement_jobs (meeting_id, race_number, cause, created_at) VALUES ($1, $2, $3, $4) RETURNING job_id`,
    [meetingId, raceNumber, cause, now]);
  return rows[0]!.job_id;
}

/** The oldest pending jobs but `skip` (those that failed in this run: they must not hide the rest). */
export async function pendingJobs(db: Queryable, skip: string[] = [], limit = 100): Promise<string[]> {
  const { rows } = await db.query<{ job_id: string }>(
    `SELECT job_id FROM settlement_jobs WHERE status = 'pending' AND job_id <> ALL($1::bigint[]) ORDER BY job_id LIMIT $2`, [skip, limit]);
  return rows.map((r) => r.job_id);
}

/** The job, locked: one batch of a job runs at a time, whichever process runs it. */
export async function lockJob(db: Queryable, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>('SELECT * FROM settlement_jobs WHERE job_id = $1 FOR UPDATE', [jobId]);
  return rows[0];
}

export async function findJob(db: Queryable, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>('SELECT * FROM settlement_jobs WHERE job_id = $1', [jobId]);
  return rows[0];
}

export interface BatchCounts {
  seen: number;
  changed: number;
  calls: number;
  problem: string | null;
}

export async function advanceJob(db: Queryable, jobId: string, after: BetKey | null, counts: BatchCounts, done: Date | null): Promise<void> {
  await db.query(
    `UPDATE settlement_jobs SET after_tenant = coalesce($2, after_tenant), after_bet = coalesce($3, after_bet),
            bets_seen = bets_seen + $4, bets_changed = bets_changed + $5, calls_queued = calls_queued + $6,
            status = CASE WHEN $7::timestamptz IS NULL THEN status ELSE 'done' END, finished_at = $7, problem = coalesce($8, problem)
      WHERE job_id = $1`,
    [jobId, after?.tenant_id ?? null, after?.bet_id ?? null, counts.seen, counts.changed, counts.calls, done, counts.problem]);
}

/** The next page of bets with a leg on the race, in (tenant, bet) order after the cursor. */
export async function racePage(db: Queryable, job: JobRow, limit: number): Promise<BetKey[]> {
  const { rows } = await db.query<BetKey>({
    name: 'settlement_race_page',
    text: `SELECT tenant_id, bet_id FROM bet_legs
            WHERE meeting_id = $1 AND race_number = $2 AND ($3::uuid IS NULL OR (tenant_id, bet_id) > ($3::uuid, $4::uuid))
            ORDER BY tenant_id, bet_id LIMIT $5`,
    values: [job.meeting_id, job.race_number, job.after_tenant, job.after_bet, limit],
  });
  return rows;
}

/** The taken bets among `keys`, locked FOR UPDATE in key order (as cancellation locks one). */
export async function lockTakenBets(db: Queryable, keys: BetKey[]): Promise<BetRow[]> {
  const { rows } = await db.query<BetRow>({
    name: 'settlement_lock_bets',
    text: `SELECT b.* FROM bets b JOIN unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, bet_id) USING (tenant_id, bet_id)
            WHERE b.status NOT IN ('pending', 'rejected') ORDER BY b.tenant_id, b.bet_id FOR UPDATE OF b`,
    values: [keys.map((k) => k.tenant_id), keys.map((k) => k.bet_id)],
  });
  return rows;
}

/** The legs of the bets, keyed "tenant:bet". */
export async function legsOfKeys(db: Queryable, keys: BetKey[]): Promise<Map<string, LegRow[]>> {
  const { rows } = await db.query<LegRow & BetKey>({
    name: 'settlement_legs',
    text: `SELECT l.* FROM bet_legs l JOIN unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, bet_id) USING (tenant_id, bet_id) ORDER BY l.tenant_id, l.bet_id, l.leg`,
    values: [keys.map((k) => k.tenant_id), keys.map((k) => k.bet_id)],
  });
  const out = new Map<string, LegRow[]>();
  for (const row of rows) {
    const key = `${row.tenant_id}:${row.bet_id}`;
    out.set(key, [...(out.get(key) ?? []), row]);
  }
  return out;
}

/** A bet's new state and ledger, with the history entry that records why. */
export interface BetChange {
  tenantId: string;
  betId: string;
  from: string;
  to: string;
  result: 'won' | 'lost' | null;
  payout: string;
  refunded: string;
  partialRefund: string;
  cashOut: string | null;
  adjusted: string;
  settledAt: Date | null;
  cancelReason: string | null;
  cause: string;
  detail: Record<string, unknown>;
}

/**
 * Writes every change and its history entry, and announces each changed bet on bet_updates (one
 * NOTIFY per bet, delivered at commit): one statement for the whole batch.
 */
export async function applyChanges(db: Queryable, changes: BetChange[], now: Date): Promise<void> {
  if (changes.length === 0) return;
  const col = <K extends keyof BetChange>(k: K) => changes.map((c) => c[k]);
  await db.query({
    name: 'settlement_apply',
    text: `WITH c AS (
        SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::numeric[], $7::numeric[], $8::numeric[],
                             $9::numeric[], $10::numeric[], $11::timestamptz[], $12::text[], $13::text[], $14::jsonb[])
          AS c(tenant_id, bet_id, from_status, to_status, result, payout, refunded, partial_refund, cash_out, adjusted, settled_at, cancel_reason, cause, detail)
      ), upd AS (
        UPDATE bets b SET status = c.to_status, result = c.result, payout = c.payout, refunded = c.refunded, partial_refund = c.partial_refund,
                          cash_out = c.cash_out, adjusted = c.adjusted, settled_at = c.settled_at, cancel_reason = c.cancel_reason, updated_at = $15
          FROM c WHERE b.tenant_id = c.tenant_id AND b.bet_id = c.bet_id
        RETURNING b.tenant_id, b.bet_id, b.user_id, b.status
      ), announced AS (
        SELECT count(${BET_UPDATE_NOTIFY.replace('$status', 'status')}) AS n FROM upd
      )
      -- History only for bets this statement updated (bet_history has no foreign key: migration 0016).
      INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause, detail)
      SELECT c.tenant_id, c.bet_id,
             (SELECT coalesce(max(h.seq), 0) + 1 FROM bet_history h WHERE h.tenant_id = c.tenant_id AND h.bet_id = c.bet_id), $15,
             c.from_status, c.to_status, c.cause, c.detail
        FROM c JOIN upd ON upd.tenant_id = c.tenant_id AND upd.bet_id = c.bet_id
       WHERE (SELECT n FROM announced) >= 0`,
    values: [col('tenantId'), col('betId'), col('from'), col('to'), col('result'), col('payout'), col('refunded'), col('partialRefund'),
      col('cashOut'), col('adjusted'), col('settledAt'), col('cancelReason'), col('cause'), changes.map((c) => JSON.stringify(c.detail)), now],
  });
}

/** The history of a bet, oldest first. */
export async function historyOf(db: Queryable, tenantId: string, betId: string) {
  const { rows } = await db.query<{ seq: number; at: Date; from_status: string | null; to_status: string; cause: string; detail: unknown }>(
    'SELECT seq, at, from_status, to_status, cause, detail FROM bet_history WHERE tenant_id = $1 AND bet_id = $2 ORDER BY seq', [tenantId, betId]);
  return rows;
}

/** Bet kinds with bets still to settle (pending, accepted, partly accepted) on each of the races, keyed "meeting/race". */
export async function kindsInPlay(db: Queryable, races: Array<{ meetingId: number; raceNumber: number }>): Promise<Map<string, string[]>> {
  if (!races.length) return new Map();
  const { rows } = await db.query<{ meeting_id: string; race_number: number; kinds: string[] }>(
    `SELECT l.meeting_id, l.race_number, array_agg(DISTINCT b.kind) AS kinds
       FROM unnest($1::bigint[], $2::int[]) AS r(m, n)
       JOIN bet_legs l ON l.meeting_id = r.m AND l.race_number = r.n
       JOIN bets b ON b.tenant_id = l.tenant_id AND b.bet_id = l.bet_id
      WHERE b.status IN ('pending', 'accepted', 'partially_accepted')
      GROUP BY l.meeting_id, l.race_number`,
    [races.map((r) => r.meetingId), races.map((r) => r.raceNumber)]);
  return new Map(rows.map((r) => [`${r.meeting_id}/${r.race_number}`, r.kinds]));
}

/**
 * The races of every QUADDIE and DAILY_DOUBLE whose last leg is one of `races` and that a result
 * may still settle (settled ones too: an amendment re-settles them), distinct per kind and races.
 */
export async function multiRaceBetsEndingOn(db: Queryable, races: Array<{ meetingId: number; raceNumber: number }>) {
  if (!races.length) return [];
  const { rows } = await db.query<{ meeting_id: string; kind: string; races: number[] }>(
    `SELECT DISTINCT l.meeting_id, b.kind, r.races
       FROM unnest($1::bigint[], $2::int[]) AS u(m, n)
       JOIN bet_legs l ON l.meeting_id = u.m AND l.race_number = u.n
       JOIN bets b ON b.tenant_id = l.tenant_id AND b.bet_id = l.bet_id
      CROSS JOIN LATERAL (SELECT array_agg(x.race_number ORDER BY x.leg) AS races FROM bet_legs x
                           WHERE x.tenant_id = b.tenant_id AND x.bet_id = b.bet_id) r
      WHERE b.kind IN ('QUADDIE', 'DAILY_DOUBLE') AND l.leg = CASE b.kind WHEN 'QUADDIE' THEN 4 ELSE 2 END
        AND b.status IN ('pending', 'accepted', 'partially_accepted', 'settled')`,
    [races.map((r) => r.meetingId), races.map((r) => r.raceNumber)]);
  return rows;
}
