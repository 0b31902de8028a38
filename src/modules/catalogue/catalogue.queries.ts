// SQL of the meeting catalogue (meetings, race_starts).
import type { Queryable } from '../../db/pool.ts';

/**
 * The racing days the given meetings are on before an import writes them, each meeting locked (FOR
 * NO KEY UPDATE, as its upsert locks it; in id order) so that no other import re-dates it between
 * this read and the write. A meeting moved off a day changes that day's last race, so the stored
 * bets of that day need its deadline again, whether or not the meeting had bets itself.
 */
export async function lockMeetingDays(db: Queryable, meetingIds: number[]): Promise<string[]> {
  const { rows } = await db.query<{ day: string }>(
    'SELECT meeting_date::text AS day FROM meetings WHERE meeting_id = ANY($1::bigint[]) ORDER BY meeting_id FOR NO KEY UPDATE',
    [meetingIds]);
  return [...new Set(rows.map((r) => r.day))];
}

export async function upsertMeetings(
  db: Queryable,
  meetings: Array<{ meeting_id: number; date: string; venue: string; jurisdiction: string; code: string }>,
): Promise<void> {
  await db.query(
    `INSERT INTO meetings (meeting_id, meeting_date, venue, jurisdiction, code, imported_at)
     SELECT * , now() FROM unnest($1::bigint[], $2::date[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (meeting_id) DO UPDATE SET meeting_date = excluded.meeting_date, venue = excluded.venue,
       jurisdiction = excluded.jurisdiction, code = excluded.code, imported_at = excluded.imported_at`,
    [
      meetings.map((m) => m.meeting_id), meetings.map((m) => m.date), meetings.map((m) => m.venue),
      meetings.map((m) => m.jurisdiction), meetings.map((m) => m.code),
    ],
  );
}

/** Adds or replaces the given race start times; races of a meeting not in the file are kept. */
export async function upsertRaceStarts(
  db: Queryable,
  races: Array<{ meeting_id: number; race_number: number; start_time: string }>,
): Promise<void> {
  if (!races.length) return;
  await db.query(
    `INSERT INTO race_starts (meeting_id, race_number, start_time)
     SELECT * FROM unnest($1::bigint[], $2::int[], $3::timestamptz[])
     ON CONFLICT (meeting_id, race_number) DO UPDATE SET start_time = excluded.start_time`,
    [races.map((r) => r.meeting_id), races.map((r) => r.race_number), races.map((r) => r.start_time)],
  );
}

/** The racing code (T, H, G) and jurisdiction of each meeting named, in one statement. */
export async function meetingCodes(db: Queryable, meetingIds: Array<number | string>): Promise<Array<{ meeting_id: string; code: string; jurisdiction: string }>> {
  if (!meetingIds.length) return [];
  const { rows } = await db.query<{ meeting_id: string; code: string; jurisdiction: string }>(
    'SELECT meeting_id, code, jurisdiction FROM meetings WHERE meeting_id = ANY ($1::bigint[])', [meetingIds.map(String)]);
  return rows;
}
