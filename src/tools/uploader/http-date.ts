// HTTP-date (RFC 9110 §5.6.7), read strictly. Date.parse is no parser for it: it takes almost any
// text with a number in it ("1.5", "-5", "soon 3") for some date long past, which a Retry-After
// would turn into no wait at all; and it reads the asctime form in local time, not GMT.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

/** Sun, 06 Nov 1994 08:49:37 GMT — the form senders generate. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
/** Sunday, 06-Nov-94 08:49:37 GMT — obsolete, still to be accepted. */
const RFC_850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
/** Sun Nov  6 08:49:37 1994 — obsolete (C's asctime), GMT. */
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (${MONTH}) ([ \\d]\\d) ${TIME} (\\d{4})$`);

interface Parts { year: number; month: string; day: number; hour: number; minute: number; second: number }

/** Milliseconds since the epoch, or undefined when a field is out of range (31 Feb, 25:00). */
function toEpoch(p: Parts): number | undefined {
  const month = MONTHS.indexOf(p.month);
  const ms = Date.UTC(p.year, month, p.day, p.hour, p.minute, p.second);
  const back = new Date(ms);
  const exact = back.getUTCFullYear() === p.year && back.getUTCMonth() === month && back.getUTCDate() === p.day &&
    back.getUTCHours() === p.hour && back.getUTCMinutes() === p.minute && back.getUTCSeconds() === p.second;
  return exact ? ms : undefined;
}

/** RFC 850's two-digit year: the one not more than 50 years ahead of now (RFC 9110 §5.6.7). */
function fullYear(twoDigits: number, now: Date): number {
  const year = Math.floor(now.getUTCFullYear() / 100) * 100 + twoDigits;
  return year > now.getUTCFullYear() + 50 ? year - 100 : year;
}

/** An HTTP-date in any of its three forms → milliseconds since the epoch; undefined otherwise. */
export function parseHttpDate(text: string, now: Date): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return toEpoch({ day: +m[1]!, month: m[2]!, year: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! });
  m = RFC_850.exec(text);
  if (m) return toEpoch({ day: +m[1]!, month: m[2]!, year: fullYear(+m[3]!, now), hour: +m[4]!, minute: +m[5]!, second: +m[6]! });
  m = ASCTIME.exec(text);
  if (m) return toEpoch({ month: m[1]!, day: +m[2]!.trim(), hour: +m[3]!, minute: +m[4]!, second: +m[5]!, year: +m[6]! });
  return undefined;
}
