// A tenant's time zone is read twice: by Intl (an upload's racing days and its checks) and by
// PostgreSQL (AT TIME ZONE: the racing day and deadline stored with every bet). Both must know
// the name. Node's ICU keeps aliases that tzdata retired (Canada/East-Saskatchewan); a tenant
// created with one before creation asked PostgreSQL had every upload fail inside the database.
// Here: the check creation and set-zone share, and the clear errors such a tenant's upload and its
// users' bets get.
import type { Queryable } from '../../db/pool.ts';
import { AppError } from '../../errors.ts';
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
 * Why `zone` cannot be a tenant's time zone, or undefined when it can: both Intl and PostgreSQL
 * must know it (tenant create and tenant set-zone ask the same).
 */
export async function timeZoneProblem(db: Queryable, zone: string): Promise<string | undefined> {
  if (!isTimeZone(zone)) return `timezone "${zone}" is not an IANA time zone name`;
  if (await q.databaseKnowsTimeZone(db, zone)) return undefined;
  return `timezone "${zone}" is not a time zone the database knows (a name retired from the IANA database?); use ${useInstead(zone)}`;
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
