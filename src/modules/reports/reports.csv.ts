// CSV of a report (RFC 4180): a header row of column names, CRLF line ends, fields quoted when they
// hold a comma, quote or line break; null is an empty field. Text that a spreadsheet would run as
// a formula (=, +, -, @ first) is prefixed with ' (OWASP "CSV injection"); numbers are not text.

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA = /^[=+\-@\t\r]/;

function field(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  const lines = [columns.map(field).join(',')];
  for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
