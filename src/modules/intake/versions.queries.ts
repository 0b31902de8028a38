// How a version of a reported bet is stored, shared by the upload and by bets placed through
// wagerline: the columns of reported_bets, what counts as a change, and the CTEs that insert or
// update the current rows and keep every version they replace (src/db/migrations/0002_reporting.sql).

export const KEY = ['tenant_id', 'source', 'bet_id', 'leg'];
/** What a bet says: a version that changes none of these is "unchanged" and writes nothing. */
export const CONTENT = ['meeting_id', 'race_number', 'bet_time', 'bet_type', 'runner_number', 'exotics_selection',
  'user_id', 'user_name', 'user_state', 'terminal_id', 'info_type', 'medium', 'resulted', 'status', 'bonus',
  'back_indicator', 'bet_back_id', 'bet_back_agency', 'bet_back_amount', 'bet_back_revenue', 'bet_back_date', 'amount',
  'price', 'payout', 'net_result', 'currency'];
/** How and when a version came: replaced with the content, but not a change by itself. */
const RECEIPT = ['api_version', 'client_id', 'last_received_at', 'racing_day', 'deadline_at', 'late'];
/** Every column of reported_bets (the revisions table has these plus superseded_at). */
export const ALL = [...KEY, ...CONTENT, 'api_version', 'client_id', 'first_received_at', 'last_received_at',
  'racing_day', 'deadline_at', 'late', 'revision'];
/** The columns a `versions` CTE must give, in any order: every column but revision. */
export const VERSION_COLUMNS = ALL.filter((c) => c !== 'revision');

const RECEIVED_LATER = `    -- A version received before the stored one (two uploads of a race, the later received first
    -- to get the race's lock) never replaces it.
    AND b.last_received_at <= excluded.last_received_at`;

/**
 * The CTEs `up` and `hist` that store the rows of a CTE named `versions` (every column but revision)
 * at `receivedAt` (an SQL expression). `up` inserts a new bet at revision 1 and updates a changed
 * one (unless the stored version was received later — `writes` 'by receipt', the upload's case;
 * 'in order': the caller writes each bet's versions in their order, and the latest written wins
 * whatever the writers' clocks say) to the next revision, in key order so that
 * two writers of overlapping rows lock them in the same order (no deadlocks); it returns (tenant_id, source, bet_id, leg, revision, late,
 * racing_day, deadline_at) of the rows written. `hist` copies each version that `up` replaced to
 * reported_bet_revisions: reported_bets read there is the statement's snapshot. If another
 * transaction changed a row after that snapshot, the revision numbers do not line up and fewer
 * revisions than updates are copied: the caller compares the two and retries.
 */
export function storeVersions(receivedAt: string, writes: 'by receipt' | 'in order' = 'by receipt'): string {
  return `up AS (
  INSERT INTO reported_bets AS b (${ALL.join(', ')})
  SELECT ${VERSION_COLUMNS.map((c) => `v.${c}`).join(', ')}, 1
  FROM versions v
  ORDER BY v.tenant_id, v.source, v.bet_id, v.leg
  ON CONFLICT (tenant_id, source, bet_id, leg) DO UPDATE SET
    ${[...CONTENT, ...RECEIPT].map((c) => `${c} = excluded.${c}`).join(', ')},
    revision = b.revision + 1
  WHERE (${CONTENT.map((c) => `b.${c}`).join(', ')}) IS DISTINCT FROM (${CONTENT.map((c) => `excluded.${c}`).join(', ')})
${writes === 'by receipt' ? RECEIVED_LATER : ''}
  RETURNING b.tenant_id, b.source, b.bet_id, b.leg, b.revision, b.late, b.racing_day, b.deadline_at
), hist AS (
  -- OFFSET 0 keeps the lateral probe a per-row primary-key lookup, only for the rows that changed.
  INSERT INTO reported_bet_revisions (${ALL.join(', ')}, superseded_at)
  SELECT ${ALL.map((c) => `o.${c}`).join(', ')}, ${receivedAt}
  FROM up u CROSS JOIN LATERAL (
    SELECT * FROM reported_bets p
    WHERE p.tenant_id = u.tenant_id AND p.source = u.source AND p.bet_id = u.bet_id AND p.leg = u.leg OFFSET 0
  ) o
  WHERE u.revision > 1 AND o.revision = u.revision - 1
  RETURNING 1
)`;
}

/** What a store did: rows created, rows updated (a revision each), and versions kept. */
export const STORED_COUNTS = `(SELECT count(*) FROM up WHERE revision = 1)::int AS created,
       (SELECT count(*) FROM up WHERE revision > 1)::int AS updated,
       (SELECT count(*) FROM hist)::int AS revisions`;

/** A conflict with a concurrent writer, found after the fact: withTransaction retries 40001. */
export function concurrentChange(): Error {
  return Object.assign(new Error('a concurrent write changed the same reported bets'), { code: '40001' });
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * A PostgreSQL array literal. node-postgres would build the same text, escaping every element with
 * two regular expressions; on 27 arrays of 1,000 values that is a measurable part of a batch.
 * Numbers, numeric strings and booleans need no quoting; text is quoted, escaped only when needed.
 */
export function arrayLiteral(values: ReadonlyArray<string | number | boolean | null>, quoted: boolean): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (!quoted) out += typeof v === 'boolean' ? (v ? 't' : 'f') : v;
    else out += `"${NEEDS_ESCAPE.test(v as string) ? (v as string).replace(/["\\]/g, '\\$&') : v}"`;
  }
  return `${out}}`;
}
