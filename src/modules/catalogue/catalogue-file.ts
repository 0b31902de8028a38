// Meetings files: `wagerline meeting import` reads meetings, with optional race start times, from
// JSON or CSV. Pure parsing; every problem of the file is collected before anything is written.
//   JSON: [{meeting_id, date, venue, jurisdiction, code, races?: [{race_number, start_time}]}]
//         (or {"meetings": [...]})
//   CSV:  header meeting_id,date,venue,jurisdiction,code[,race_number,start_time]; one row per
//         race (meeting columns repeated) or one row per meeting without race columns.
import { parse as parseCsv } from 'csv-parse/sync';
import { AppError } from '../../errors.ts';
import { characters, showable, SHOWABLE_RULE, unstorable } from '../../http/text-rules.ts';
import { isDate, MAX_RACE_NUMBER, parseInstant, positiveInteger, trimText } from '../../racing/values.ts';

export interface MeetingInput {
  meeting_id: number;
  date: string;
  venue: string;
  jurisdiction: string;
  code: 'T' | 'H' | 'G';
  races: Array<{ race_number: number; start_time: string }>;
}

const CODES = new Set(['T', 'H', 'G']);
const MAX_LISTED_PROBLEMS = 10;

function problems(list: string[]): AppError {
  const shown = list.slice(0, MAX_LISTED_PROBLEMS).join('; ');
  const more = list.length > MAX_LISTED_PROBLEMS ? ` (and ${list.length - MAX_LISTED_PROBLEMS} more)` : '';
  return new AppError('bad_request', `nothing imported: ${shown}${more}`);
}

/** Flat records (one per meeting, or one per race) to meetings; every problem is collected. */
export function toMeetings(records: Array<Record<string, unknown>>): MeetingInput[] {
  const errors: string[] = [];
  const byId = new Map<number, MeetingInput>();
  records.forEach((r, i) => {
    const at = `record ${i + 1}`;
    const id = positiveInteger(r.meeting_id, Number.MAX_SAFE_INTEGER);
    const date = typeof r.date === 'string' ? trimText(r.date) : '';
    const venue = typeof r.venue === 'string' ? trimText(r.venue) : '';
    const jurisdiction = typeof r.jurisdiction === 'string' ? trimText(r.jurisdiction).toUpperCase() : '';
    const code = typeof r.code === 'string' ? trimText(r.code).toUpperCase() : '';
    const before = errors.length;
    if (id === undefined) errors.push(`${at}: meeting_id must be a positive integer`);
    if (!isDate(date)) errors.push(`${at}: date must be YYYY-MM-DD`);
    if (!venue || characters(venue) > 200) errors.push(`${at}: venue is required (at most 200 characters)`);
    // A file's text reaches SQL: U+0000 (PostgreSQL refuses it) and other control characters are
    // refused here, and half of a surrogate pair (it would be stored as U+FFFD, another name).
    else if (/[\u0000-\u001f\u007f]/.test(venue)) errors.push(`${at}: venue must not contain control characters (such as U+0000)`);
    else if (unstorable(venue)) errors.push(`${at}: venue must not contain half of a surrogate pair (such as \\ud800 alone)`);
    else if (!showable(venue)) errors.push(`${at}: venue must show something: ${SHOWABLE_RULE}`);
    if (!/^[A-Z0-9_-]{1,32}$/.test(jurisdiction)) errors.push(`${at}: jurisdiction must be a code such as NSW`);
    if (!CODES.has(code)) errors.push(`${at}: code must be T (thoroughbred), H (harness) or G (greyhound)`);
    const races: Array<{ race_number: unknown; start_time: unknown }> = Array.isArray(r.races) ? r.races
      : r.race_number !== undefined && r.race_number !== '' ? [{ race_number: r.race_number, start_time: r.start_time }] : [];
    if (r.races !== undefined && !Array.isArray(r.races)) errors.push(`${at}: races must be an array`);
    const parsedRaces = races.map((race, j) => {
      const n = positiveInteger(race.race_number, MAX_RACE_NUMBER);
      const start = typeof race.start_time === 'string' ? parseInstant(trimText(race.start_time)) : undefined;
      if (n === undefined) errors.push(`${at}: race ${j + 1}: race_number must be 1 to ${MAX_RACE_NUMBER}`);
      if (!start) errors.push(`${at}: race ${j + 1}: start_time must be an ISO 8601 date-time with a UTC offset`);
      return { race_number: n ?? 0, start_time: start?.text ?? '' };
    });
    if (errors.length > before) return;
    const existing = byId.get(id!);
    if (existing && (existing.date !== date || existing.venue !== venue || existing.jurisdiction !== jurisdiction || existing.code !== code)) {
      errors.push(`${at}: meeting ${id} appears again with different meeting details`);
      return;
    }
    const meeting = existing ?? { meeting_id: id!, date, venue, jurisdiction, code: code as MeetingInput['code'], races: [] };
    for (const race of parsedRaces) {
      if (meeting.races.some((x) => x.race_number === race.race_number)) errors.push(`${at}: race ${race.race_number} of meeting ${id} appears twice`);
      else meeting.races.push(race);
    }
    byId.set(id!, meeting);
  });
  if (errors.length) throw problems(errors);
  if (!byId.size) throw new AppError('bad_request', 'nothing imported: the file holds no meetings');
  return [...byId.values()];
}

/** Parses a meetings file by its name (.json or .csv). */
export function parseMeetingsFile(name: string, content: string): MeetingInput[] {
  if (/\.json$/i.test(name)) {
    let data: unknown;
    try {
      data = JSON.parse(content);
    } catch (error) {
      throw new AppError('bad_request', `${name} is not valid JSON: ${(error as Error).message}`);
    }
    const list = Array.isArray(data) ? data : (data as { meetings?: unknown })?.meetings;
    if (!Array.isArray(list)) throw new AppError('bad_request', `${name} must hold an array of meetings (or {"meetings": [...]})`);
    return toMeetings(list.map((m) => (typeof m === 'object' && m !== null ? m as Record<string, unknown> : {})));
  }
  if (/\.csv$/i.test(name)) {
    let rows: Array<Record<string, string>>;
    try {
      rows = parseCsv(content, { columns: true, skip_empty_lines: true, trim: true, bom: true });
    } catch (error) {
      throw new AppError('bad_request', `${name} is not valid CSV: ${(error as Error).message}`);
    }
    return toMeetings(rows);
  }
  throw new AppError('bad_request', `${name}: the file name must end in .json or .csv`);
}

