// Local racing time: the time zone of a racing jurisdiction, a wall-clock time on a date in that
// zone as an instant, and the local date of an instant. Intl's time-zone data only (no I/O).

const ZONES: Record<string, string> = {
  NSW: 'Australia/Sydney', ACT: 'Australia/Sydney', VIC: 'Australia/Melbourne', QLD: 'Australia/Brisbane',
  SA: 'Australia/Adelaide', WA: 'Australia/Perth', TAS: 'Australia/Hobart', NT: 'Australia/Darwin',
  NZ: 'Pacific/Auckland',
};

/** The IANA zone of a jurisdiction code; Australia/Sydney for one not listed. */
export function jurisdictionZone(jurisdiction: string): string {
  return ZONES[jurisdiction.toUpperCase()] ?? 'Australia/Sydney';
}

function parts(ms: number, zone: string): Record<string, number> {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
  return Object.fromEntries(fmt.formatToParts(new Date(ms)).filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
}

/** Minutes the zone is ahead of UTC at the instant `ms`. */
export function zoneOffsetMinutes(ms: number, zone: string): number {
  const p = parts(ms, zone);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** YYYY-MM-DD of the instant `ms` in the zone. */
export function localDate(ms: number, zone: string): string {
  const p = parts(ms, zone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The instant of a wall-clock time (minutes after local midnight) on a date in the zone. */
export function zonedInstant(date: string, minutes: number, zone: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d) + minutes * 60_000;
  // Two passes settle the offset also next to a daylight-saving change.
  let ms = wall - zoneOffsetMinutes(wall, zone) * 60_000;
  ms = wall - zoneOffsetMinutes(ms, zone) * 60_000;
  return ms;
}

/** ISO 8601 with the zone's offset at that instant, e.g. 2026-11-21T14:10:00+11:00. */
export function isoInZone(ms: number, zone: string): string {
  const offset = zoneOffsetMinutes(ms, zone);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
