// The sample racing day (examples/racing-day.json) re-dated for `wagerline catalog sample`: each
// meeting moves to the date asked for, its races keep their local times of day in the meeting's
// jurisdiction time zone; for "today" the races start over the coming hours instead (the first 30
// minutes from now, the others keeping their spacing), so they are open for betting at once; the
// meeting is then dated by its first race's local date.
// Meeting ids are 9YYMMDDNN (the date and the meeting's place in the file): another date is
// another set of meetings, and running the command again for a date updates the same meetings.
// Nine digits keep them within a 32-bit integer, as GraphQL's Int (meetingId of /graphql) is.
import { readFile } from 'node:fs/promises';
import { AppError } from '../../errors.ts';
import { isoInZone, jurisdictionZone, localDate, zonedInstant, zoneOffsetMinutes } from '../../racing/race-times.ts';
import { isDate, parseInstant } from '../../racing/values.ts';

const SAMPLE = new URL('../../../examples/racing-day.json', import.meta.url);
const DAY_MS = 86_400_000;
const LEAD_MS = 30 * 60_000;
const STEP_MS = 5 * 60_000;

type Obj = Record<string, any>;

export async function loadSampleDay(): Promise<unknown> {
  return JSON.parse(await readFile(SAMPLE, 'utf8'));
}

/** Minutes after local midnight of an ISO date-time in the zone. */
function localMinutes(iso: string, zone: string): number {
  const ms = parseInstant(iso)?.ms;
  if (ms === undefined) throw new AppError('bad_request', `the sample day has a bad start_time "${iso}"`);
  const local = ms + zoneOffsetMinutes(ms, zone) * 60_000;
  return Math.round((((local % DAY_MS) + DAY_MS) % DAY_MS) / 60_000);
}

function meetingsOf(day: unknown): Obj[] {
  const list = Array.isArray(day) ? day : (day as Obj | null)?.meetings;
  if (!Array.isArray(list)) throw new AppError('bad_request', 'the sample day must hold {"meetings": [...]}');
  return list as Obj[];
}

export interface RedatedDay {
  date: string;
  meetings: Obj[];
  summary: Array<{ meeting_id: number; venue: string; jurisdiction: string; date: string; races: number; first_start: string; last_start: string }>;
}

export function redate(day: unknown, date: string, nowMs: number): RedatedDay {
  if (date !== 'today' && !isDate(date)) throw new AppError('bad_request', `--date must be "today" or a date YYYY-MM-DD, got "${date}"`);
  const source = meetingsOf(day);
  const zoneOf = (m: Obj) => jurisdictionZone(String(m.jurisdiction ?? ''));
  // For today: the earliest race (local time of day, across meetings) starts LEAD_MS from now.
  const earliest = Math.min(...source.flatMap((m) => (m.races ?? []).map((r: Obj) => localMinutes(r.start_time, zoneOf(m)))));
  const firstStart = Math.ceil((nowMs + LEAD_MS) / STEP_MS) * STEP_MS;
  const meetings = source.map((m, index) => {
    const zone = zoneOf(m);
    const minutes: number[] = (m.races ?? []).map((r: Obj) => localMinutes(r.start_time, zone));
    // Today's meeting is dated by its first race's local date: near midnight that is tomorrow there.
    const meetingDate = date === 'today' ? localDate(firstStart + ((minutes[0] ?? earliest) - earliest) * 60_000, zone) : date;
    const races = (m.races ?? []).map((r: Obj, i: number) => {
      const ms = date === 'today' ? firstStart + (minutes[i]! - earliest) * 60_000 : zonedInstant(meetingDate, minutes[i]!, zone);
      return { ...r, start_time: isoInZone(ms, zone) };
    });
    const meetingId = Number(`9${meetingDate.slice(2).replaceAll('-', '')}${String(index + 1).padStart(2, '0')}`);
    return { ...m, meeting_id: meetingId, date: meetingDate, races } as Obj;
  });
  const summary = meetings.map((m) => ({
    meeting_id: m.meeting_id, venue: m.venue, jurisdiction: m.jurisdiction, date: m.date, races: m.races.length,
    first_start: m.races[0]?.start_time ?? null, last_start: m.races.at(-1)?.start_time ?? null,
  }));
  return { date: meetings[0]?.date ?? date, meetings, summary };
}
