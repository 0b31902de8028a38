// Moving sample data to another day: whole days are added to the date part of dates
// ("2024-05-01") and timestamps ("2024-05-01T12:10:05+10:00"), keeping the time of day and the
// offset as written, so a sample racing day can be replayed on any day (`meeting import --date`,
// `upload --date`). Pure.

const DATE = /^(\d{4}-\d{2}-\d{2})/;
const DAY_MS = 86_400_000;

/** "today" (UTC) or a YYYY-MM-DD date → YYYY-MM-DD; undefined when it is neither. */
export function targetDate(value: string, now: Date): string | undefined {
  if (value === 'today') return now.toISOString().slice(0, 10);
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  return parsed && !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value ? value : undefined;
}

/** Whole days from one YYYY-MM-DD date to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** The text with `days` added to its leading date; text without one is returned unchanged. */
export function shiftDate(text: string, days: number): string {
  const m = DATE.exec(text);
  if (!m || days === 0) return text;
  const moved = new Date(Date.parse(`${m[1]}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
  return moved + text.slice(m[1]!.length);
}

/** The earliest leading date among the texts, or undefined when none has one. */
export function earliestDate(texts: Iterable<unknown>): string | undefined {
  let first: string | undefined;
  for (const text of texts) {
    const m = typeof text === 'string' ? DATE.exec(text) : null;
    if (m && (first === undefined || m[1]! < first)) first = m[1]!;
  }
  return first;
}

/** The whole days that move the earliest leading date among the texts to `date` (0 when none has one). */
export function daysToMove(texts: Iterable<unknown>, date: string): number {
  const first = earliestDate(texts);
  return first ? daysBetween(first, date) : 0;
}

/**
 * As daysToMove, but a day earlier (or more) when the move would put any timestamp among the texts
 * after `now`: a replayed bet cannot have been placed in the future (the upload refuses it), so a
 * sample replayed "today" early in the day lands on the day before. Texts without a time of day
 * are not timestamps and do not hold the move back.
 */
export function daysToMoveNotAfter(texts: unknown[], date: string, now: Date): number {
  let days = daysToMove(texts, date);
  const instants = texts.flatMap((t) => (typeof t === 'string' && DATE.test(t) && t.includes('T') && !Number.isNaN(Date.parse(t)) ? [Date.parse(t)] : []));
  if (!instants.length) return days;
  // Whole days added to the date part move the instant by whole days: the offset is kept as written.
  const latest = instants.reduce((a, b) => (b > a ? b : a)); // not Math.max(...): a large file overflows the stack
  while (latest + days * DAY_MS > now.getTime()) days -= 1;
  return days;
}
