// SQL of the reports: one aggregate statement per report, computed in PostgreSQL. Tables:
// src/db/migrations/0002_reporting.sql (reported_bets, meetings) and 0001 (operator_clients).
// Rules (docs/reports.md): a bet counts once, on its lowest uploaded leg the viewer sees;
// Cancelled and FullRefund count zero; money is summed exactly (NUMERIC) and rounded once, to
// cents, per figure.
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';

/**
 * Runs a report in a read-only transaction (a replica can serve it) with JIT off and a time bound.
 * JIT compilation cost 300+ ms per report in bench/reports.ts, more than the query itself: the
 * per-bet sub-plans make the estimated cost large while the actual work is index probes.
 */
export function inReportTransaction<T>(db: Pool, timeoutMs: number, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return withTransaction(db, async (tx) => {
    await tx.query("SELECT set_config('jit', 'off', true), set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
    return fn(tx);
  }, { isolation: 'repeatable read', readOnly: true });
}

/**
 * Who sees what: an operator its own tenant; an authority every tenant, within its jurisdictions;
 * a track owner every tenant, on the meetings at its venues.
 */
export type Viewer =
  | { kind: 'tenant'; tenantId: string }
  | { kind: 'authority'; jurisdictions: string[] }
  | { kind: 'track'; venues: string[] };

/** The jurisdictions and venues of an active client (empty when it has none, is revoked or does not exist). */
export async function clientReach(db: Queryable, clientId: string): Promise<{ jurisdictions: string[]; venues: string[] }> {
  const { rows } = await db.query<{ jurisdictions: string[]; venues: string[] }>(
    "SELECT jurisdictions, venues FROM operator_clients WHERE client_id = $1 AND status = 'active'", [clientId]);
  return rows[0] ?? { jurisdictions: [], venues: [] };
}

export interface Range {
  from: string;
  to: string;
  meetingId: string | null;
}

/** Group keys: name in the report → expression over the counted bet (a whitelist: never user text in SQL). */
export const GROUP_KEYS = {
  meeting_id: 'b.meeting_id',
  race_number: 'b.race_number',
  type: 'b.bet_type',
  user_state: 'b.user_state',
  source: 'b.source',
  bonus: 'b.bonus',
  info_type: 'b.info_type',
  medium: 'b.medium',
  date: 'b.racing_day::text',
  tenant_id: 'b.tenant_id',
  // The currency of the amounts: from the leg the money comes from (below), never another leg's.
  currency: 'x.currency',
} as const;
export type GroupKey = keyof typeof GROUP_KEYS;

/** Types whose bet may be uploaded as several rows (one per leg) with the bet's amounts repeated. */
const MULTI_ROW_TYPES = `('multi', 'quaddie', 'dailydouble')`;

// The bets in view: a FROM clause binding b (a reported_bets row) and t (its tenant), and the
// conditions on them. $1 tenant id (operator), jurisdictions (authority) or venues (track owner,
// JURISDICTION:Venue[:CODE]), $2 from, $3 to, $4 meeting id.
// The jurisdictions are a parameter, not a join, so the planner keeps the per-tenant index path.
// The rows come tenant by tenant (LATERAL), so each tenant's slice is read along (tenant_id,
// racing_day) or (tenant_id, meeting_id, ...): tenant_id leads every index (ARCHITECTURE).
// `lowerLeg` is the test that a lower leg l of the same bet is also in view (then the bet is counted
// there, not on b): an operator sees every leg; an authority the legs on its meetings or customers.
function inView(viewer: Viewer, extra = ''): { from: string; where: string[]; lowerLeg: string } {
  const slice = `SELECT * FROM reported_bets r
    WHERE r.tenant_id = t.tenant_id AND r.racing_day BETWEEN $2::date AND $3::date
      AND ($4::bigint IS NULL OR r.meeting_id = $4::bigint) ${extra}`;
  if (viewer.kind === 'tenant') {
    return { from: `(SELECT $1::uuid AS tenant_id) t CROSS JOIN LATERAL (${slice}) b`, where: [], lowerLeg: 'true' };
  }
  if (viewer.kind === 'track') {
    // Bets on meetings at the track owner's venues; its customers' states are not its to see.
    return {
      from: `tenants t CROSS JOIN LATERAL (${slice}) b
        JOIN meetings m ON m.meeting_id = b.meeting_id`,
      where: [`EXISTS (SELECT 1 FROM unnest($1::text[]) v WHERE ${atVenue('m', 'v')})`],
      lowerLeg: `EXISTS (SELECT 1 FROM meetings lm, unnest($1::text[]) v WHERE lm.meeting_id = l.meeting_id AND ${atVenue('lm', 'v')})`,
    };
  }
  // Bets on meetings in the authority's jurisdictions, or by customers in them (user_state).
  return {
    from: `tenants t CROSS JOIN LATERAL (${slice}) b
      LEFT JOIN meetings m ON m.meeting_id = b.meeting_id`,
    where: ['(m.jurisdiction = ANY ($1::text[]) OR b.user_state = ANY ($1::text[]))'],
    lowerLeg: `(l.user_state = ANY ($1::text[])
      OR (SELECT lm.jurisdiction FROM meetings lm WHERE lm.meeting_id = l.meeting_id) = ANY ($1::text[]))`,
  };
}

/** Whether meeting `m` is at venue `v` (`JURISDICTION:Venue[:CODE]`; the name compared regardless of case). */
function atVenue(m: string, v: string): string {
  return `${m}.jurisdiction = split_part(${v}, ':', 1) AND lower(${m}.venue) = lower(split_part(${v}, ':', 2))
    AND (split_part(${v}, ':', 3) = '' OR ${m}.code = split_part(${v}, ':', 3))`;
}

/**
 * The group keys of a report: those asked for, then `currency` unless asked for already. Every row
 * is of one currency, so no figure adds the dollars of two countries (a report converts nothing).
 */
export function reportKeys(asked: readonly GroupKey[]): GroupKey[] {
  return asked.includes('currency') ? [...asked] : [...asked, 'currency'];
}

/** The turnover statement (exported for EXPLAIN in bench/reports.ts). */
export function turnoverSql(viewer: Viewer, asked: GroupKey[]): string {
  const keys = reportKeys(asked);
  const select = keys.map((k) => `${GROUP_KEYS[k]} AS ${k}`);
  const groups = keys.map((_, i) => String(i + 1));
  const view = inView(viewer);
  return `
WITH counted AS (
  SELECT ${[...select, 'x.void', 'x.amount', 'x.payout', 'x.bet_back_amount', 'b.bonus AS is_bonus'].join(', ')}
  FROM ${view.from}
  -- Its status and money come from its most recently received leg: the latest state the operator
  -- reported (a multi's last leg is uploaded once the whole bet is resulted).
  CROSS JOIN LATERAL (
    SELECT s.status IN ('Cancelled', 'FullRefund') AS void, s.amount, coalesce(s.payout, 0) AS payout,
           coalesce(s.bet_back_amount, 0) AS bet_back_amount, s.currency
    FROM (SELECT b.status, b.amount, b.payout, b.bet_back_amount, b.currency, b.last_received_at, b.leg
          WHERE b.bet_type NOT IN ${MULTI_ROW_TYPES}
          UNION ALL
          (SELECT l.status, l.amount, l.payout, l.bet_back_amount, l.currency, l.last_received_at, l.leg
           FROM reported_bets l
           WHERE b.bet_type IN ${MULTI_ROW_TYPES}
             AND l.tenant_id = b.tenant_id AND l.source = b.source AND l.bet_id = b.bet_id
           ORDER BY l.last_received_at DESC, l.leg DESC LIMIT 1)) s
  ) x
  -- A bet of several rows counts once: on its lowest uploaded leg in view (the race it is
  -- attributed to). Not limited to from/to: a bet's race does not depend on the range asked.
  WHERE ${[...view.where, `(b.leg = 1 OR NOT EXISTS (
    SELECT 1 FROM reported_bets l
    WHERE l.tenant_id = b.tenant_id AND l.source = b.source AND l.bet_id = b.bet_id AND l.leg < b.leg
      AND ${view.lowerLeg}))`].join(' AND ')}
), sums AS (
  SELECT ${[...keys, 'count(*) AS bets', 'count(*) FILTER (WHERE void) AS void_bets',
    'coalesce(sum(amount) FILTER (WHERE NOT void), 0) AS turnover',
    'coalesce(sum(amount) FILTER (WHERE NOT void AND is_bonus), 0) AS bonus_turnover',
    'coalesce(sum(bet_back_amount) FILTER (WHERE NOT void), 0) AS bet_back_turnover',
    'coalesce(sum(payout) FILTER (WHERE NOT void), 0) AS payout'].join(', ')}
  FROM counted ${groups.length ? `GROUP BY ${groups.join(', ')}` : ''}
)
SELECT ${[...keys, 'bets::int', 'void_bets::int',
    ...['turnover', 'bonus_turnover', 'bet_back_turnover', 'payout'].map((c) => `round(${c}, 2)::text AS ${c}`),
    'round(turnover - payout, 2)::text AS net_result'].join(', ')}
FROM sums ${groups.length ? `ORDER BY ${groups.map((g) => `${g} NULLS LAST`).join(', ')}` : ''}`;
}

export type TurnoverRow = Record<string, string | number | boolean | null>;

export async function turnover(db: Queryable, viewer: Viewer, range: Range, keys: GroupKey[]): Promise<TurnoverRow[]> {
  const { rows } = await db.query<TurnoverRow>(turnoverSql(viewer, keys), params(viewer, range));
  return rows;
}

export function params(viewer: Viewer, range: Range): unknown[] {
  const who = viewer.kind === 'tenant' ? viewer.tenantId
    : viewer.kind === 'authority' ? viewer.jurisdictions : viewer.venues;
  return [who, range.from, range.to, range.meetingId];
}

export interface LateRow {
  tenant_id: string;
  tenant_name: string;
  client_id: string;
  date: string;
  meeting_id: string;
  race_number: number;
  bets: number;
  late_bets: number;
  late_changes: number;
  deadline_at: Date;
  first_late_at: Date;
  last_late_at: Date;
  max_delay_seconds: number;
}

// Current versions received after their racing day's deadline, per client, day and race. Late rows
// are few: the partial index reported_bets_late_idx (tenant_id, last_received_at) WHERE late finds them.
export async function lateUploads(db: Queryable, viewer: Viewer, range: Range): Promise<LateRow[]> {
  const view = inView(viewer, 'AND r.late');
  const { rows } = await db.query<LateRow>(`
    SELECT b.tenant_id, tn.name AS tenant_name, b.client_id, b.racing_day::text AS date, b.meeting_id, b.race_number,
           count(*)::int AS bets,
           count(*) FILTER (WHERE b.first_received_at > b.deadline_at)::int AS late_bets,
           count(*) FILTER (WHERE b.first_received_at <= b.deadline_at)::int AS late_changes,
           min(b.deadline_at) AS deadline_at, min(b.last_received_at) AS first_late_at, max(b.last_received_at) AS last_late_at,
           -- bigint: a bet of 1900 uploaded today is ~4e9 seconds late, past int's 2^31 (a 500 before).
           floor(extract(epoch FROM max(b.last_received_at - b.deadline_at)))::bigint AS max_delay_seconds
    FROM ${view.from}
    JOIN tenants tn ON tn.tenant_id = b.tenant_id
    ${view.where.length ? `WHERE ${view.where.join(' AND ')}` : ''}
    GROUP BY b.tenant_id, tn.name, b.client_id, b.racing_day, b.meeting_id, b.race_number
    ORDER BY b.racing_day, tn.name, b.tenant_id, b.client_id, b.meeting_id, b.race_number`,
  params(viewer, range));
  // int8 arrives as text (db/pool.ts); any delay up to year 9999 (~3e11 s) is an exact Number.
  return rows.map((r) => ({ ...r, max_delay_seconds: Number(r.max_delay_seconds) }));
}
