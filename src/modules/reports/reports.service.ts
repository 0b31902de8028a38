// Reports on reported bets (spec 1.1: "available for reporting to the operator, track owners,
// racing authorities and regulators"): turnover grouped any way, and the compliance report of late
// uploads (spec 8). Parameters are checked here, with messages that say what is wrong and where.
import type { Pool, Queryable } from '../../db/pool.ts';
import { AppError, describeProblems, echo } from '../../errors.ts';
import type { Principal } from '../auth/tokens.service.ts';
import * as q from './reports.queries.ts';

/** A range covers at most this many racing days (a leap year). */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
/**
 * Racing days are years 1900..9999, as bet times on upload are (year ≥ 1900): JavaScript takes
 * year 0 but PostgreSQL has no year 0, so an unbounded date would reach the query and fail there.
 */
const MIN_YEAR = 1900;
/**
 * A report query taking longer is cancelled (57014 → a 500 logged): a bound on what one request may
 * cost the database. serve's client-side bound (WAGERLINE_DB_QUERY_TIMEOUT_MS) stays above it.
 */
export const REPORT_TIMEOUT_MS = 120_000;

export interface TurnoverQuery {
  from?: string;
  to?: string;
  meeting_id?: string;
  group_by?: string | string[];
}

export interface ReportResult<Row> {
  columns: string[];
  rows: Row[];
}

interface FieldError {
  field: string;
  message: string;
}

function invalid(errors: FieldError[]): AppError {
  return new AppError('validation_failed', describeProblems(errors), { extensions: { errors } });
}

/** YYYY-MM-DD that is a real calendar date, as a UTC midnight epoch; undefined otherwise. */
function day(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? undefined : ms;
}

/** from and to: racing days (YYYY-MM-DD), both included, from ≤ to, at most MAX_RANGE_DAYS days. */
function parseRange(query: { from?: string; to?: string }, errors: FieldError[]): { from: string; to: string } {
  const at = (name: 'from' | 'to') => {
    const raw = query[name];
    if (raw === undefined || raw === '') {
      errors.push({ field: `querystring/${name}`, message: 'is required (a racing day, YYYY-MM-DD)' });
      return undefined;
    }
    const ms = day(raw);
    if (ms === undefined) errors.push({ field: `querystring/${name}`, message: `must be a date YYYY-MM-DD, got ${echo(raw)}` });
    else if (Number(raw.slice(0, 4)) < MIN_YEAR) {
      errors.push({ field: `querystring/${name}`, message: `must be a date in the years ${MIN_YEAR} to 9999, got ${echo(raw)}` });
      return undefined;
    }
    return ms;
  };
  const from = at('from');
  const to = at('to');
  if (from !== undefined && to !== undefined) {
    if (from > to) errors.push({ field: 'querystring/to', message: `must not be before from (${query.from})` });
    else if ((to - from) / DAY_MS + 1 > MAX_RANGE_DAYS) {
      errors.push({ field: 'querystring/to', message: `the range covers ${(to - from) / DAY_MS + 1} days; at most ${MAX_RANGE_DAYS}` });
    }
  }
  return { from: query.from ?? '', to: query.to ?? '' };
}

function parseGroupBy(raw: string | string[] | undefined, errors: FieldError[]): q.GroupKey[] {
  const names = (Array.isArray(raw) ? raw : [raw ?? '']).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const keys: q.GroupKey[] = [];
  for (const name of names) {
    if (!Object.hasOwn(q.GROUP_KEYS, name)) {
      errors.push({ field: 'querystring/group_by', message: `${echo(name)} is not a group key; use any of ${Object.keys(q.GROUP_KEYS).join(', ')}` });
    } else if (!keys.includes(name as q.GroupKey)) {
      keys.push(name as q.GroupKey);
    }
  }
  return keys;
}

function parseMeeting(raw: string | undefined, errors: FieldError[]): string | null {
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,18}$/.test(raw) || BigInt(raw) < 1n || BigInt(raw) > BigInt(Number.MAX_SAFE_INTEGER)) {
    errors.push({ field: 'querystring/meeting_id', message: `must be a positive integer, got ${echo(raw)}` });
    return null;
  }
  return BigInt(raw).toString();
}

/**
 * A `report` client with jurisdictions is an authority, one with venues a track owner: each sees
 * across tenants within them. Any other client (`upload`, or `report` without either: an
 * operator's own analyst) sees its own tenant — so an operator's report client never finds its
 * reports empty.
 */
async function viewerOf(db: Queryable, principal: Principal): Promise<q.Viewer> {
  const reach = principal.scopes.includes('report') ? await q.clientReach(db, principal.clientId) : { jurisdictions: [], venues: [] };
  if (reach.jurisdictions.length > 0) return { kind: 'authority', jurisdictions: reach.jurisdictions };
  if (reach.venues.length > 0) return { kind: 'track', venues: reach.venues };
  return { kind: 'tenant', tenantId: principal.tenantId };
}

export const METRICS = ['bets', 'void_bets', 'turnover', 'bonus_turnover', 'bet_back_turnover', 'payout', 'net_result'] as const;

export const LATE_COLUMNS = ['date', 'tenant_id', 'tenant_name', 'client_id', 'meeting_id', 'race_number', 'bets', 'late_bets',
  'late_changes', 'deadline_at', 'first_late_at', 'last_late_at', 'max_delay_seconds'] as const;

export function createReportsService({ db }: { db: Pool }) {
  return {
    async turnover(principal: Principal, query: TurnoverQuery): Promise<ReportResult<q.TurnoverRow>> {
      const errors: FieldError[] = [];
      const range = parseRange(query, errors);
      const meetingId = parseMeeting(query.meeting_id, errors);
      const keys = parseGroupBy(query.group_by, errors);
      if (errors.length) throw invalid(errors);
      const rows = await q.inReportTransaction(db, REPORT_TIMEOUT_MS, async (tx) => q.turnover(tx, await viewerOf(tx, principal), { ...range, meetingId }, keys));
      // meeting_id is a bigint (a string from pg); ids of the reporting system fit a JSON number.
      if (keys.includes('meeting_id')) for (const row of rows) row.meeting_id = row.meeting_id === null ? null : Number(row.meeting_id);
      return { columns: [...q.reportKeys(keys), ...METRICS], rows };
    },

    async lateUploads(principal: Principal, query: { from?: string; to?: string; meeting_id?: string }): Promise<ReportResult<Record<string, unknown>>> {
      const errors: FieldError[] = [];
      const range = parseRange(query, errors);
      const meetingId = parseMeeting(query.meeting_id, errors);
      if (errors.length) throw invalid(errors);
      const rows = await q.inReportTransaction(db, REPORT_TIMEOUT_MS, async (tx) => q.lateUploads(tx, await viewerOf(tx, principal), { ...range, meetingId }));
      return {
        columns: [...LATE_COLUMNS],
        rows: rows.map((r) => ({
          date: r.date, tenant_id: r.tenant_id, tenant_name: r.tenant_name, client_id: r.client_id,
          meeting_id: Number(r.meeting_id), race_number: r.race_number, bets: r.bets, late_bets: r.late_bets,
          late_changes: r.late_changes, deadline_at: r.deadline_at.toISOString(), first_late_at: r.first_late_at.toISOString(),
          last_late_at: r.last_late_at.toISOString(), max_delay_seconds: r.max_delay_seconds,
        })),
      };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
