// SQL of the back-office reads (backoffice-reads.ts): a page of bets of several tenants walked by
// (created_at, bet_id), and the history of a page of bets. Tables: migrations 0008, 0009, 0010.
import type { Queryable } from '../../db/pool.ts';
import type { BetRow, LegRow } from './betting.queries.ts';

/** A bet of a back-office page, with what its record needs besides the row. */
export interface PageRow extends BetRow {
  /** The sequence number of the bet's latest history entry (null: none). */
  last_seq: number | null;
  /** Whether the bet was taken at or after the advertised start of one of its races. */
  live: boolean;
  /** Its legs in leg order, when the page was read with them. */
  legs?: LegRow[];
  /** Its history, oldest first, when the page was read with it. */
  history?: HistoryRow[];
}

/** What a page is read with besides the bets, in the same statement. */
export interface PageParts {
  legs?: boolean;
  history?: boolean;
}

export interface PageQuery {
  tenantIds: string[];
  /** Only these bets (of those tenants), or every bet when null. */
  betIds: string[] | null;
  /** The last bet of the page before: the page starts after it in (created_at, bet_id) order. */
  lastId: string | null;
  limit: number;
  with?: PageParts;
}

// A bet's legs and history come as one JSON array each, so the page is one statement and one
// round trip. The JSON keeps the row types exact: numerics and bigints as their text, instants as
// epoch milliseconds (floor: as node-postgres truncates microseconds), made Dates again below.
// Each is one lateral aggregate over the bet's rows that also gives what the record needs from
// them (live, last_seq): one index probe per bet and table instead of two.
const EPOCH_MS = (column: string) => `floor(extract(epoch FROM ${column}) * 1000)`;
const LEGS = {
  columns: 'coalesce(lg.live, false) AS live, lg.legs_json',
  join: `LEFT JOIN LATERAL (SELECT bool_or(l.event_time <= b.created_at) AS live,
      json_agg(json_build_object('leg', l.leg, 'meeting_id', l.meeting_id::text, 'race_number', l.race_number, 'event_id', l.event_id,
        'event_name', l.event_name, 'meeting_name', l.meeting_name, 'event_time', ${EPOCH_MS('l.event_time')},
        'selections', l.selections, 'seen_price', l.seen_price::text, 'price', l.price::text,
        'struck_at', ${EPOCH_MS('l.struck_at')}) ORDER BY l.leg) AS legs_json
    FROM bet_legs l WHERE l.tenant_id = b.tenant_id AND l.bet_id = b.bet_id) lg ON true`,
  alone: 'EXISTS (SELECT 1 FROM bet_legs l WHERE l.tenant_id = b.tenant_id AND l.bet_id = b.bet_id AND l.event_time <= b.created_at) AS live',
};
const HISTORY = {
  columns: 'hs.last_seq, hs.history_json',
  join: `LEFT JOIN LATERAL (SELECT max(h.seq) AS last_seq,
      json_agg(json_build_object('seq', h.seq, 'at', ${EPOCH_MS('h.at')}, 'from_status', h.from_status, 'to_status', h.to_status,
        'cause', h.cause, 'detail', h.detail) ORDER BY h.seq) AS history_json
    FROM bet_history h WHERE h.tenant_id = b.tenant_id AND h.bet_id = b.bet_id) hs ON true`,
  alone: '(SELECT max(h.seq) FROM bet_history h WHERE h.tenant_id = b.tenant_id AND h.bet_id = b.bet_id) AS last_seq',
};

type RawPageRow = PageRow & { legs_json?: Array<Omit<LegRow, 'event_time' | 'struck_at'> & { event_time: number; struck_at: number | null }> | null; history_json?: Array<Omit<HistoryRow, 'tenant_id' | 'bet_id' | 'at'> & { at: number }> | null };

function pageRow(raw: RawPageRow): PageRow {
  const { legs_json: legs, history_json: history, ...row } = raw;
  if (legs !== undefined) {
    row.legs = (legs ?? []).map((l) => ({ ...l, event_time: new Date(l.event_time), struck_at: l.struck_at === null ? null : new Date(l.struck_at) }));
  }
  if (history !== undefined) row.history = (history ?? []).map((h) => ({ tenant_id: row.tenant_id, bet_id: row.bet_id, ...h, at: new Date(h.at) }));
  return row;
}

/**
 * Up to `limit` bets of the tenants after `lastId`, oldest first (bet id breaking ties), in one
 * statement: each tenant's bets are read along its index range, at most `limit` of them, and the
 * tenants' runs merged. A `lastId` that is no bet of these tenants gives no rows (see cursorExists).
 * Each combination of filters is a statement of its own, so a prepared plan never loses its index
 * condition to an "or the parameter is null".
 */
export async function betsPage(db: Queryable, q: PageQuery): Promise<PageRow[]> {
  const values: unknown[] = [q.tenantIds, q.limit];
  const where = ['x.tenant_id = t.tenant_id'];
  let cursor = '';
  if (q.lastId !== null) {
    values.push(q.lastId);
    cursor = `WITH cursor AS (SELECT created_at, bet_id FROM bets WHERE tenant_id = ANY ($1::uuid[]) AND bet_id = $${values.length}::uuid ORDER BY tenant_id LIMIT 1)`;
    where.push('(x.created_at, x.bet_id) > (SELECT created_at, bet_id FROM cursor)');
  }
  if (q.betIds !== null) {
    values.push(q.betIds);
    where.push(`x.bet_id = ANY ($${values.length}::uuid[])`);
  }
  const [legs, history] = [q.with?.legs ?? false, q.with?.history ?? false];
  const { rows } = await db.query<RawPageRow>({
    name: `backoffice_bets_page${q.lastId !== null ? '_after' : ''}${q.betIds !== null ? '_ids' : ''}${legs ? '_legs' : ''}${history ? '_history' : ''}`,
    // The page is chosen first; what each bet needs is then read for those bets only.
    text: `${cursor}
      SELECT b.*, ${history ? HISTORY.columns : HISTORY.alone}, ${legs ? LEGS.columns : LEGS.alone}
        FROM (SELECT b.* FROM unnest($1::uuid[]) AS t(tenant_id)
               CROSS JOIN LATERAL (SELECT x.* FROM bets x WHERE ${where.join(' AND ')} ORDER BY x.created_at, x.bet_id LIMIT $2) b
               ORDER BY b.created_at, b.bet_id
               LIMIT $2) b
        ${legs ? LEGS.join : ''}
        ${history ? HISTORY.join : ''}
       ORDER BY b.created_at, b.bet_id`,
    values,
  });
  return rows.map(pageRow);
}

/** Whether `betId` is a bet of one of the tenants (a page after it that came back empty asks). */
export async function cursorExists(db: Queryable, tenantIds: string[], betId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM bets WHERE tenant_id = ANY ($1::uuid[]) AND bet_id = $2', [tenantIds, betId]);
  return (rowCount ?? 0) > 0;
}

export interface HistoryRow {
  tenant_id: string;
  bet_id: string;
  seq: number;
  at: Date;
  from_status: string | null;
  to_status: string;
  cause: string;
  detail: Record<string, unknown> | null;
}

/** The history of several bets, in one statement, each bet's oldest first. */
export async function historyOfKeys(db: Queryable, keys: Array<{ tenant_id: string; bet_id: string }>): Promise<HistoryRow[]> {
  if (!keys.length) return [];
  const { rows } = await db.query<HistoryRow>({
    name: 'backoffice_history',
    text: `SELECT h.tenant_id, h.bet_id, h.seq, h.at, h.from_status, h.to_status, h.cause, h.detail
             FROM bet_history h JOIN unnest($1::uuid[], $2::uuid[]) AS k(tenant_id, bet_id) USING (tenant_id, bet_id)
            ORDER BY h.tenant_id, h.bet_id, h.seq`,
    values: [keys.map((k) => k.tenant_id), keys.map((k) => k.bet_id)],
  });
  return rows;
}
