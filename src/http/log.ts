// What a request looks like in the logs. Fastify's own request serializer, but with the URL
// redacted: a token sent in the query (clients do it, whatever docs/auth.md says) would otherwise
// be logged verbatim at info in every "incoming request" line.
import type { FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { AppError } from '../errors.ts';

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


/** pino's level number of `error`. */
const ERROR_LEVEL = 50;

/** What a GraphQL error wraps, through the GraphQL errors around it (resolvers' errors are wrapped twice). */
function cause(error: unknown): unknown {
  let inner = error;
  for (let depth = 0; depth < 5 && inner instanceof GraphQLError && inner.originalError; depth++) inner = inner.originalError;
  return inner;
}

/** A list of GraphQL errors, each a client's refusal (an AppError below 500), as mercurius logs them. */
function clientRefusals(value: unknown): Array<{ code: string; message: string }> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const refusals = value.map(cause);
  if (!refusals.every((e) => e instanceof AppError && e.status < 500)) return undefined;
  return (refusals as AppError[]).map((e) => ({ code: e.code, message: e.message }));
}

/**
 * pino's logMethod hook. mercurius logs the errors of a subscription its resolver refused at error
 * level, as if the server had failed — a connection over its subscription limit, an id already
 * live (docs/frontend.md): a client's mistake, which is logged at info as a refused request is,
 * so that error lines stay the server's own failures.
 */
export function logMethod(this: { info: (fields: object, message: string) => void }, args: unknown[], method: (...args: unknown[]) => void, level: number) {
  const refusals = level === ERROR_LEVEL ? clientRefusals(args[0]) : undefined;
  if (refusals) return this.info({ refusals }, 'subscription refused');
  return method.apply(this, args);
}
