// SQL of the tenants' acceptance limits and the book's liability per runner (runner_liability):
// read and locked by the take, released when an open bet is closed. Tables: src/db/migrations/0008_bets.sql.
import type { Queryable } from '../../db/pool.ts';

export interface LimitsRow {
  max_stake: string | null;
  max_payout: string | null;
  max_runner_liability: string | null;
}

export async function findLimits(db: Queryable, tenantId: string): Promise<LimitsRow | undefined> {
  const { rows } = await db.query<LimitsRow>('SELECT max_stake, max_payout, max_runner_liability FROM tenant_limits WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function findLimitsWithTime(db: Queryable, tenantId: string): Promise<(LimitsRow & { updated_at: Date }) | undefined> {
  const { rows } = await db.query<LimitsRow & { updated_at: Date }>(
    'SELECT max_stake, max_payout, max_runner_liability, updated_at FROM tenant_limits WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function upsertLimits(db: Queryable, tenantId: string, l: LimitsRow, now: Date): Promise<LimitsRow & { updated_at: Date }> {
  const { rows } = await db.query<LimitsRow & { updated_at: Date }>(
    `INSERT INTO tenant_limits (tenant_id, max_stake, max_payout, max_runner_liability, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET max_stake = $2, max_payout = $3, max_runner_liability = $4, updated_at = $5
     RETURNING max_stake, max_payout, max_runner_liability, updated_at`,
    [tenantId, l.max_stake, l.max_payout, l.max_runner_liability, now],
  );
  return rows[0]!;
}

export interface LiabilityKey {
  tenantId: string;
  meetingId: number;
  raceNumber: number;
  runner: number;
  kind: string;
}

/** A tenant's limits as lockLiabilities reads them, with the runners' liabilities it locked. */
export interface LimitsAndLiabilities {
  limits: Map<string, LimitsRow>;
  /** By liabilityId(key): the liability in dollars. */
  liabilities: Map<string, string>;
}

export const liabilityId = (k: LiabilityKey) => `${k.tenantId}/${k.meetingId}/${k.raceNumber}/${k.runner}/${k.kind}`;

/**
 * The runners' liability rows, locked for this transaction in key order (created at 0 when
 * missing), and the tenants' limits (all null for a tenant with none), in one statement.
 */
export async function lockLiabilities(db: Queryable, tenantIds: string[], keys: LiabilityKey[]): Promise<LimitsAndLiabilities> {
  const sorted = [...new Map(keys.map((k) => [liabilityId(k), k])).values()].sort((a, b) =>
    a.tenantId.localeCompare(b.tenantId) || a.meetingId - b.meetingId || a.raceNumber - b.raceNumber || a.runner - b.runner || a.kind.localeCompare(b.kind));
  const { rows } = await db.query<{ tenant_id: string; meeting_id: string | null; race_number: number | null; runner: number | null; kind: string | null;
    liability: string | null } & { [K in keyof LimitsRow]: LimitsRow[K] | null }>({
    name: 'betting_lock_liabilities',
    text: `WITH l AS (
        INSERT INTO runner_liability (tenant_id, meeting_id, race_number, runner, kind)
        SELECT t, m, r, n, d FROM unnest($1::uuid[], $2::bigint[], $3::int[], $4::int[], $5::text[]) WITH ORDINALITY AS k(t, m, r, n, d, i) ORDER BY i
        ON CONFLICT (tenant_id, meeting_id, race_number, runner, kind) DO UPDATE SET liability = runner_liability.liability
        RETURNING tenant_id, meeting_id, race_number, runner, kind, liability
      )
      SELECT l.tenant_id, l.meeting_id, l.race_number, l.runner, l.kind, l.liability, NULL AS max_stake, NULL AS max_payout, NULL AS max_runner_liability FROM l
      UNION ALL
      SELECT x.tenant_id, NULL, NULL, NULL, NULL, NULL, t.max_stake, t.max_payout, t.max_runner_liability
        FROM unnest($6::uuid[]) AS x(tenant_id) LEFT JOIN tenant_limits t ON t.tenant_id = x.tenant_id`,
    values: [sorted.map((k) => k.tenantId), sorted.map((k) => k.meetingId), sorted.map((k) => k.raceNumber), sorted.map((k) => k.runner),
      sorted.map((k) => k.kind), [...new Set(tenantIds)]],
  });
  const limits = new Map<string, LimitsRow>();
  const liabilities = new Map<string, string>();
  for (const row of rows) {
    if (row.kind === null) limits.set(row.tenant_id, { max_stake: row.max_stake, max_payout: row.max_payout, max_runner_liability: row.max_runner_liability });
    else liabilities.set(liabilityId({ tenantId: row.tenant_id, meetingId: Number(row.meeting_id), raceNumber: row.race_number!, runner: row.runner!, kind: row.kind }), row.liability!);
  }
  return { limits, liabilities };
}

/** Takes `amount` (dollars) off the runner's liability: an open bet closed before its race is settled. */
export async function releaseLiability(db: Queryable, key: LiabilityKey, amount: string): Promise<void> {
  await db.query(
    `UPDATE runner_liability SET liability = greatest(liability - $6::numeric, 0)
     WHERE tenant_id = $1 AND meeting_id = $2 AND race_number = $3 AND runner = $4 AND kind = $5`,
    [key.tenantId, key.meetingId, key.raceNumber, key.runner, key.kind, amount]);
}
