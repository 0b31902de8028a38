// A configured URL as logs and error messages may show it. An identity provider or a wallet may
// take its credential in the query string (`…/jwks.json?api_key=…`): every value of the query is
// replaced by [Redacted] (names kept, so the operator still knows the URL), and an item without a
// name as a whole. Works on any text: what follows its first "?" is taken as the query.

export const REDACTED = '[Redacted]';

export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((item) => {
    const eq = item.indexOf('=');
    return eq < 0 ? REDACTED : `${item.slice(0, eq)}=${REDACTED}`;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}
