// A configured URL as logs and error messages may show it. An identity provider or a wallet may
// take its credential in the query string (`…/jwks.json?api_key=…`) or in the URL's user info
// (`https://user:secret@…`): every value of the query is replaced by [Redacted] (names kept, so the
// operator still knows the URL), an item without a name as a whole, and so is the user info.
// Works on any text, a URL or not (a value refused as not a URL is quoted too).

export const REDACTED = '[Redacted]';

/** What follows the text's first "?" is taken as the query. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((item) => {
    const eq = item.indexOf('=');
    return eq < 0 ? REDACTED : `${item.slice(0, eq)}=${REDACTED}`;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/**
 * The user info is what precedes the last "@" before the query and fragment, after the scheme's
 * "//" (or from the start when there is none). A password may hold a "/" or an "@" when the text
 * is not a valid URL, so the last "@" is taken, not the authority's: a path with an "@" in it is
 * hidden too, rather than a password shown.
 */
export function redactUserInfo(url: string): string {
  const queryAt = url.search(/[?#]/);
  const head = queryAt < 0 ? url : url.slice(0, queryAt);
  const at = head.lastIndexOf('@');
  if (at < 0) return url;
  const slashes = head.indexOf('//');
  const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
  return `${url.slice(0, start)}${REDACTED}${url.slice(at)}`;
}

/** Both: the URL without its user info and without its query values. */
export function redactUrlCredentials(url: string): string {
  return redactQuery(redactUserInfo(url));
}
