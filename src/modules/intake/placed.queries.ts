// SQL that writes bets placed through wagerline to the reporting store: one statement for any
// number of bet rows (legs), run inside the caller's transaction. The rows are stored and their
// replaced versions kept exactly as an upload's (versions.queries.ts); what differs is where the
// columns come from: each row names its own tenant, meeting and race, and the tenant gives the
// currency and the time zone.
import type { Queryable } from '../../db/pool.ts';
import { arrayLiteral, STORED_COUNTS, storeVersions, VERSION_COLUMNS } from './versions.queries.ts';

/** The rows to write, one array per column, one element per bet leg. */
export interface PlacedColumns {
  tenant_id: string[]; bet_id: string[]; leg: number[]; meeting_id: string[]; race_number: number[];
  bet_time: string[]; bet_type: string[]; runner_number: (number | null)[]; exotics_selection: (string | null)[];
  user_id: string[]; medium: (string | null)[]; resulted: boolean[]; status: string[]; bonus: boolean[];
  amount: string[]; price: (string | null)[]; payout: (string | null)[];
}

// Columns in the order of the unnest() arrays, with their array types.
const INPUT: Array<[keyof PlacedColumns, string]> = [
  ['tenant_id', 'uuid'], ['bet_id', 'text'], ['leg', 'int'], ['meeting_id', 'bigint'], ['race_number', 'int'],
  ['bet_time', 'timestamptz'], ['bet_type', 'text'], ['runner_number', 'int'], ['exotics_selection', 'text'],
  ['user_id', 'text'], ['medium', 'text'], ['resulted', 'boolean'], ['status', 'text'], ['bonus', 'boolean'],
  ['amount', 'numeric'], ['price', 'numeric'], ['payout', 'numeric'],
];
const SCALARS = 4; // $1..$4 below
const QUOTED = new Set(['uuid', 'text', 'timestamptz']);

/** The stored columns that are not given per row: the request's scalars, fixed values, or derived. */
const DERIVED: Record<string, string> = {
  source: '$2::text', user_name: 'NULL::text', user_state: 'NULL::text', terminal_id: 'NULL::text', info_type: 'NULL::text',
  back_indicator: 'false', bet_back_id: 'NULL::text', bet_back_agency: 'NULL::text', bet_back_amount: 'NULL::numeric',
  bet_back_revenue: 'NULL::numeric', bet_back_date: 'NULL::timestamptz',
  // The operator's result, as an upload states it: null until the payout is known.
  net_result: 'i.amount - i.payout', currency: 'i.currency',
  api_version: '$3::smallint', client_id: '$4::text', first_received_at: '$1::timestamptz', last_received_at: '$1::timestamptz',
  // Recorded when it happens, never after the fact: a placed bet is never late.
  deadline_at: 'd.deadline_at', late: 'false',
};

// $1 written at, $2 source, $3 api version, $4 client id.
const STORE = `
WITH input AS (
  SELECT u.*, t.currency, t.timezone
  FROM unnest(${INPUT.map(([, type], i) => `$${SCALARS + 1 + i}::${type}[]`).join(', ')})
    AS u(${INPUT.map(([c]) => c).join(', ')})
  JOIN tenants t ON t.tenant_id = u.tenant_id
), meeting_days AS MATERIALIZED (
  -- Once per meeting: a batch of a race's settlement names one meeting for thousands of rows.
  SELECT m.meeting_id, catalogue_meeting_date(m.meeting_id) AS meeting_date FROM (SELECT DISTINCT meeting_id FROM input) m
), dated AS (
  -- The racing day as an upload's: the meeting's date, else the bet's local date in the tenant's zone.
  SELECT i.*, coalesce(md.meeting_date, (i.bet_time AT TIME ZONE i.timezone)::date) AS racing_day
  FROM input i JOIN meeting_days md ON md.meeting_id = i.meeting_id
), days AS MATERIALIZED (
  -- The upload deadline of each racing day, computed as for an upload (docs/upload.md).
  SELECT d.racing_day, d.timezone, catalogue_upload_deadline(d.racing_day, d.timezone) AS deadline_at
  FROM (SELECT DISTINCT racing_day, timezone FROM dated) d
), versions AS (
  SELECT ${VERSION_COLUMNS.map((c) => `${DERIVED[c] ?? `i.${c}`} AS ${c}`).join(', ')}
  FROM dated i JOIN days d ON d.racing_day = i.racing_day AND d.timezone = i.timezone
), ${storeVersions('$1::timestamptz', 'in order') /* each bet's versions are written under its row's lock, in order */}
SELECT (SELECT count(*) FROM versions)::int AS rows, ${STORED_COUNTS}`;

export interface PlacedStoreResult {
  /** Rows that reached the store: fewer than given when a tenant does not exist. */
  rows: number;
  created: number;
  updated: number;
  revisions: number;
}

export async function storePlacedBets(
  db: Queryable,
  columns: PlacedColumns,
  fixed: { writtenAt: Date; source: string; apiVersion: number; clientId: string },
): Promise<PlacedStoreResult> {
  const { rows } = await db.query<PlacedStoreResult>({
    name: 'reporting_store_placed_bets',
    text: STORE,
    values: [fixed.writtenAt, fixed.source, fixed.apiVersion, fixed.clientId,
      ...INPUT.map(([c, type]) => arrayLiteral(columns[c], QUOTED.has(type)))],
  });
  return rows[0]!;
}
