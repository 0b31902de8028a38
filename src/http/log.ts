// What a request looks like in the logs. Fastify's own request serializer, but with the URL
// redacted: a token sent in the query (clients do it, whatever docs/auth.md says) would otherwise
// be logged verbatim at info in every "incoming request" line.
import type { FastifyRequest } from 'fastify';

/** Query parameters whose values are credentials (any case): redacted from every logged URL. */
const SECRET_PARAMS = /^(access_token|refresh_token|id_token|token|client_secret|secret|api_key|apikey|password|passwd|code|signature|sig|key)$/i;

/** Matrix parameters of the path (`/a;secret=x/b`): their values are redacted as the query's. */
function redactPath(path: string): string {
  return path.replace(/;([^;/=?]*)=([^;/?]*)/g, (all, name: string) => (SECRET_PARAMS.test(safeDecode(name).trim()) ? `;${name}=[Redacted]` : all));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text; // an undecodable name is compared as sent
  }
}

/** The URL with the value of every credential-like query or path parameter replaced by [Redacted]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = redactPath(q < 0 ? url : url.slice(0, q));
  if (q < 0) return path;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && SECRET_PARAMS.test(safeDecode(rawName).trim()) ? `${rawName}=[Redacted]` : pair;
  });
  return `${path}?${query.join('&')}`;
}

export const serializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};

