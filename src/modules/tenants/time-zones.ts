// A tenant's time zone is read twice: by Intl (an upload's racing days and its checks) and by
// PostgreSQL (AT TIME ZONE: the racing day and deadline stored with every bet). Both must know
// the name, and read it alike. Node's ICU keeps aliases that tzdata retired
// (Canada/East-Saskatchewan); a tenant created with one before creation asked PostgreSQL had every
// upload fail inside the database. And PostgreSQL reads a name that is also a time zone
// abbreviation (CET, EET, WET, MET) as the abbreviation, a fixed offset, where Intl reads the zone
// with summer time: racing days an hour apart all summer. Here: the check creation and set-zone
// share, the faults a stored zone can have, and the clear errors a tenant's upload and its users'
// bets get when the database refuses its zone.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
import { zoneOffsetMinutes } from '../../racing/race-times.ts';
import * as q from './tenants.queries.ts';

/**
 * An IANA time zone name. Intl reads it for racing days and PostgreSQL for reports: an offset such
 * as "+10:00" (which Node 22 and later accept) is UTC+10 to Intl but UTC−10 to PostgreSQL, a POSIX
 * zone, so only names pass (Etc/GMT+10 means the same to both).
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** ICU's canonical name for an alias it knows ("Canada/East-Saskatchewan" → "America/Regina"), when it differs. */
export function currentName(zone: string): string | undefined {
  try {
    const canonical = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
    return canonical.toLowerCase() === zone.toLowerCase() ? undefined : canonical;
  } catch {
    return undefined;
  }
}

/** What to write instead of a zone the database does not know: its current name when ICU has one. */
function useInstead(zone: string): string {
  const current = currentName(zone);
  return current ? `its current name, "${current}"` : 'its current name (e.g. "America/Regina", not "Canada/East-Saskatchewan")';
}

/**
 * The instants both readings of a zone are compared at: noon UTC every seven days of the year, so
 * that any difference lasting a week shows — summer time in either hemisphere, and rules that
 * differ only at its edges (a POSIX rule such as SystemV/EST5EDT keeps today's US dates in the
 * database and the pre-2007 ones in Node.js: four weeks in spring, one in autumn).
 */
export function comparisonInstants(now = new Date()): Date[] {
  const start = Date.UTC(now.getUTCFullYear(), 0, 1, 12);
  return Array.from({ length: 53 }, (_, week) => new Date(start + week * 7 * 86_400_000));
}

/** A zone the database and Intl read differently: the first instant they disagree at, and both offsets (minutes). */
export interface Misreading {
  abbreviation: boolean;
  at: Date;
  database: number;
  node: number;
}

/**
 * What is wrong with a zone as both read it: `unknown` when the database cannot convert in it
 * (its uploads and bets are refused), a Misreading when it converts with other offsets than Intl
 * (racing days differ between uploads and placed bets), undefined when both read it alike.
 */
export function zoneFault(reading: q.ZoneReading, instants: Date[]): 'unknown' | Misreading | undefined {
  if (!reading.offsets) return 'unknown';
  if (!isTimeZone(reading.zone)) return undefined;
  const node = instants.map((at) => zoneOffsetMinutes(at.getTime(), reading.zone));
  const i = node.findIndex((minutes, n) => minutes !== reading.offsets![n]);
  return i < 0 ? undefined : { abbreviation: reading.abbreviation, at: instants[i]!, database: reading.offsets[i]!, node: node[i]! };
}

/** Minutes east of UTC as "UTC+01:00". */
function utcOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `UTC${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A Region/City name to use instead of an abbreviation: the zone Intl reads it as, when ICU names one. */
function regionCity(zone: string): string {
  const current = currentName(zone);
  return current?.includes('/') ? `such as "${current}"` : 'such as "Europe/Paris" (not "CET")';
}

/**
 * Why `zone` cannot be a tenant's time zone, or undefined when it can: Intl and PostgreSQL must
 * both know it and read it alike. A name PostgreSQL reads only as an abbreviation is refused even
 * when the offsets agree today (JST): the abbreviation table is the server's setting
 * (timezone_abbreviations), not time zone data. Under 300 characters, as a problem document's
 * strings are.
 */
export function zoneProblem(reading: q.ZoneReading, instants: Date[]): string | undefined {
  const { zone } = reading;
  const fault = zoneFault(reading, instants);
  // Neither a zone of its database nor an abbreviation, yet converted: a POSIX rule ("SystemV/AST4"), not a zone.
  if (fault === 'unknown' || (!reading.known && !reading.abbreviation)) {
    return `timezone "${zone}" is not a time zone the database knows (a name retired from the IANA database?); use ${useInstead(zone)}`;
  }
  const when = fault && `on ${fault.at.toISOString().slice(0, 10)}`;
  if (reading.abbreviation && (fault || !reading.known)) {
    const readings = fault ? `it reads it as ${utcOffset(fault.database)} ${when}, Node.js as ${utcOffset(fault.node)} (racing days would differ)` : 'a fixed offset, not a zone';
    return `timezone "${zone}" is a time zone abbreviation to the database: ${readings}; use a Region/City name, ${regionCity(zone)}`;
  }
  if (fault) {
    return `timezone "${zone}" is ${utcOffset(fault.database)} to the database and ${utcOffset(fault.node)} to Node.js ${when}: ` +
      'their time zone data differ; update the older (the server\'s tzdata or Node.js)';
  }
  return undefined;
}

const notIana = (zone: string) => `timezone "${zone}" is not an IANA time zone name`;

/** Why `zone` cannot be a tenant's time zone (tenant create), or undefined: one statement. */
export async function timeZoneProblem(db: Queryable, zone: string): Promise<string | undefined> {
  if (!isTimeZone(zone)) return notIana(zone);
  const instants = comparisonInstants();
  const [reading] = await q.zoneReadings(db, [zone], instants);
  return zoneProblem(reading!, instants);
}

/**
 * tenant set-zone's two questions in one statement: why the new zone cannot be a tenant's (as at
 * creation), and whether the current one may be replaced — only a zone the database does not know
 * or reads differently from Intl: the racing days and deadlines of stored bets were worked out in it.
 */
export async function zoneChange(db: Queryable, current: string, next: string): Promise<{ problem?: string; replaceable: boolean }> {
  const instants = comparisonInstants();
  const readings = await q.zoneReadings(db, [current, next], instants);
  const of = (zone: string) => readings.find((r) => r.zone === zone)!;
  const problem = isTimeZone(next) ? zoneProblem(of(next), instants) : notIana(next);
  return { ...(problem && { problem }), replaceable: zoneFault(of(current), instants) !== undefined };
}

/**
 * The tenants (in their order) whose stored zone the database does not know, and those whose zone
 * it reads differently from Intl: one statement for every distinct zone.
 */
export async function tenantsByZoneFault<T extends { timezone: string }>(db: Queryable, tenants: T[]): Promise<{ unknown: T[]; misread: T[] }> {
  const instants = comparisonInstants();
  const readings = await q.zoneReadings(db, [...new Set(tenants.map((t) => t.timezone))], instants);
  const faults = new Map(readings.map((r) => [r.zone, zoneFault(r, instants)]));
  return {
    unknown: tenants.filter((t) => faults.get(t.timezone) === 'unknown'),
    misread: tenants.filter((t) => typeof faults.get(t.timezone) === 'object'),
  };
}

/** PostgreSQL refusing a zone name in AT TIME ZONE or timezone(): 22023 `time zone "…" not recognized`. */
export function isUnknownZoneError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '22023' && typeof e.message === 'string' && /^time zone ".*" not recognized$/.test(e.message);
}

/**
 * The answer to a request of a tenant whose stored zone the database does not know: the service's
 * configuration stops it, not the request, so a 409 that says who fixes it and how (never a 500).
 * Short: a problem document's strings stay under 300 characters.
 */
export function tenantMisconfigured(tenantId: string, zone: string, cause?: unknown): AppError {
  return new AppError('tenant_misconfigured',
    `the tenant's time zone "${zone}" is unknown to the database (retired from the IANA database?): nothing was stored; ` +
    `an administrator fixes it with \`wagerline tenant set-zone ${tenantId} ${currentName(zone) ?? '<zone>'}\`, then send it again`,
    { extensions: { tenant_id: tenantId, timezone: zone }, cause });
}

/**
 * The answer to a frontend user's bet for such a tenant, before anything is reserved or stored:
 * the user can do nothing about it, so it says only that the operator must fix the tenant's zone
 * (no zone, no command: those are in the operator's `serve` warning and the upload's 409).
 */
export function tenantCannotTakeBets(): AppError {
  return new AppError('tenant_misconfigured',
    'bets cannot be placed now: the operator must fix this tenant\'s time zone setting first; nothing was reserved or stored');
}
