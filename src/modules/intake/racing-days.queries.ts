// The racing day, deadline and lateness of stored bets follow the catalogue. An upload takes them
// from the catalogue as it stands (the meeting's date; 24 h after the day's last race start), so a
// meeting registered or re-dated after its bets were uploaded moves them here, in the catalogue
// write's transaction (docs/reports.md, "Parameters").
//
// An upload and an import of the same meeting must not miss each other: an upload reads the
// meeting's date in the statement that stores its bets, and an import re-dates the stored bets in
// its own statement; if each statement's snapshot were taken before the other committed, the
// upload's bets would keep the old day for good. So both take the meeting's lock first, an upload
// shared (uploads of a meeting's races still run side by side), an import exclusive: whichever
// comes second sees what the first committed.
//
// No deadlock: an upload holds one race lock (lockRace) when it asks for its one meeting lock, and
// only then writes bets; an import asks for meeting locks only, after its catalogue writes, in
// meeting id order, before it touches a bet. Nothing that holds a meeting lock waits for a race
// lock, nor for catalogue rows (uploads read the catalogue without locking it). The meeting locks
// use the two-key form of advisory locks: a space of their own, apart from the race locks.
import type { Queryable } from '../../db/pool.ts';

/** Whether row b is late against deadline d ($2: the source of bets placed through wagerline, never late). */
const LATE = 'b.source <> $2 AND b.last_received_at > d.deadline_at';

const MEETING_KEY = (param: string) => `hashtext('reporting_meeting'), hashtext(${param}::bigint::text)`;

/** The upload side: the meeting's lock, shared, until the transaction ends. Take it after lockRace. */
export async function lockMeetingShared(db: Queryable, meetingId: number): Promise<void> {
  await db.query({
    name: 'reporting_lock_meeting_shared',
    text: `SELECT pg_advisory_xact_lock_shared(${MEETING_KEY('$1')})`,
    values: [meetingId],
  });
}

/** The import side: the meetings' locks, exclusive, in meeting id order (one order for every import). */
async function lockMeetings(db: Queryable, meetingIds: number[]): Promise<void> {
  const ordered = [...new Set(meetingIds)].sort((a, b) => a - b);
  // Rows of unnest come in array order, so the locks are taken in that order.
  await db.query(`SELECT count(pg_advisory_xact_lock(${MEETING_KEY('id')})) FROM unnest($1::bigint[]) AS m(id)`, [ordered]);
}

/**
 * Moves the current rows of `meetingIds` to their meeting's date, then sets the deadline (and
 * `late`: received after it) of every row of the racing days touched, before and after, for each
 * tenant in its own time zone. `previousDays` are the meetings' dates before the catalogue write:
 * a meeting that leaves a day changes that day's last race even if none of its own bets were on it.
 * Returns how many rows changed day and how many changed deadline.
 */
export async function refreshRacingDays(db: Queryable, meetingIds: number[], placedSource: string, previousDays: string[] = []): Promise<{ moved: number; deadlines: number }> {
  if (!meetingIds.length) return { moved: 0, deadlines: 0 };
  // Before any statement below takes its snapshot: an upload of these meetings still running has
  // committed by then, and one that starts later waits for this transaction and reads the new date.
  await lockMeetings(db, meetingIds);
  // Every tenant first, so that each lookup goes by the (tenant_id, meeting_id, …) index.
  const { rows: [moved] } = await db.query<{ moved: number; days: string[] }>(
    `WITH old AS (
       SELECT DISTINCT b.racing_day FROM tenants t JOIN reported_bets b ON b.tenant_id = t.tenant_id
        WHERE b.meeting_id = ANY($1::bigint[])
     ), moved AS (
       UPDATE reported_bets b SET racing_day = m.meeting_date
         FROM tenants t, meetings m
        WHERE b.tenant_id = t.tenant_id AND b.meeting_id = m.meeting_id AND m.meeting_id = ANY($1::bigint[])
          AND b.racing_day <> m.meeting_date
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM moved)::int AS moved,
            ARRAY(SELECT racing_day::text FROM old UNION SELECT meeting_date::text FROM meetings WHERE meeting_id = ANY($1::bigint[])
                  UNION SELECT unnest($2::date[])::text) AS days`,
    [meetingIds, previousDays]);
  // A bet placed through wagerline is never late (docs/reports.md): it is written when it happens,
  // and a settlement or cancellation after the deadline is not an upload the operator owed in time.
  const { rowCount } = await db.query(
    `UPDATE reported_bets b SET deadline_at = d.deadline_at, late = ${LATE}
       FROM (SELECT t.tenant_id, day, catalogue_upload_deadline(day, t.timezone) AS deadline_at
               FROM tenants t CROSS JOIN unnest($1::date[]) AS day) d
      WHERE b.tenant_id = d.tenant_id AND b.racing_day = d.day
        AND (b.deadline_at IS DISTINCT FROM d.deadline_at OR b.late IS DISTINCT FROM (${LATE}))`,
    [moved!.days, placedSource]);
  return { moved: moved!.moved, deadlines: rowCount ?? 0 };
}
