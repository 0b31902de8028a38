// The racing day, deadline and lateness of stored bets follow the catalogue. An upload takes them
// from the catalogue as it stands (the meeting's date; 24 h after the day's last race start), so a
// meeting registered or re-dated after its bets were uploaded moves them here, in the catalogue
// write's transaction (docs/reports.md, "Parameters").
import type { Queryable } from '../../db/pool.ts';

/**
 * Moves the current rows of `meetingIds` to their meeting's date, then sets the deadline (and
 * `late`: received after it) of every row of the racing days touched, before and after, for each
 * tenant in its own time zone. Returns how many rows changed day and how many changed deadline.
 */
export async function refreshRacingDays(db: Queryable, meetingIds: number[]): Promise<{ moved: number; deadlines: number }> {
  if (!meetingIds.length) return { moved: 0, deadlines: 0 };
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
            ARRAY(SELECT racing_day::text FROM old UNION SELECT meeting_date::text FROM meetings WHERE meeting_id = ANY($1::bigint[])) AS days`,
    [meetingIds]);
  const { rowCount } = await db.query(
    `UPDATE reported_bets b SET deadline_at = d.deadline_at, late = b.last_received_at > d.deadline_at
       FROM (SELECT t.tenant_id, day, catalogue_upload_deadline(day, t.timezone) AS deadline_at
               FROM tenants t CROSS JOIN unnest($1::date[]) AS day) d
      WHERE b.tenant_id = d.tenant_id AND b.racing_day = d.day
        AND (b.deadline_at IS DISTINCT FROM d.deadline_at OR b.late IS DISTINCT FROM (b.last_received_at > d.deadline_at))`,
    [moved!.days]);
  return { moved: moved!.moved, deadlines: rowCount ?? 0 };
}
