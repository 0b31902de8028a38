// What both GraphQL endpoints' live subscriptions share (mercurius' `subscription` option, the
// graphql-ws protocols over WebSocket: graphql-transport-ws, and the older graphql-ws):
// credentials from the connection_init payload, a refusal that says why, and the checks a query
// gets over HTTP (mercurius runs a subscription's document without validating it).
import type { FastifyRequest } from 'fastify';
import { GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import { AppError } from '../errors.ts';

/** Close codes of a refused connection_init: as graphql-ws closes an unauthorised socket. */
export const CLOSE_UNAUTHENTICATED = 4401;
export const CLOSE_FORBIDDEN = 4403;
/**
 * A connection refused because its user holds too many already (TOO_MANY_CONNECTIONS): 429 as
 * over HTTP. graphql-ws clients take 4429 as final and do not reconnect on their own, which is
 * what a user already at the limit needs (4403, say, they would retry).
 */
export const CLOSE_TOO_MANY = 4429;
/** Anything else refused (e.g. a payload without X-Tenant-Id): graphql-ws' close code of a bad request. */
export const CLOSE_BAD_REQUEST = 4400;
/** Sent to clients every 30 s (graphql-transport-ws: ping), so proxies keep the socket open. */
export const KEEP_ALIVE_MS = 30_000;

/** The connection mercurius calls onConnect on: its socket and the upgrade request. */
export interface SocketLike {
  /** ws' state: 2 closing, 3 closed (a socket that left while its connection_init was checked). */
  readonly readyState?: number;
  close(code: number, reason: string): void;
  once(event: 'close', listener: () => void): unknown;
}
interface ConnectionLike {
  socket?: SocketLike;
  context?: { request?: FastifyRequest };
}

/**
 * The credentials of a connection_init payload, as lower-case header names: the payload itself or
 * its `headers` object ({"x-api-key": …, "authorization": "Bearer …"}); string values only.
 */
export function initHeaders(payload: unknown): Record<string, string> {
  const source = typeof payload === 'object' && payload !== null
    ? ((payload as { headers?: unknown }).headers ?? payload)
    : {};
  const headers: Record<string, string> = {};
  if (typeof source !== 'object' || source === null) return headers;
  for (const [name, value] of Object.entries(source)) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** The code and close code a refusal is answered with. */
function refusalOf(error: AppError, code: (error: AppError) => string): { close: number; reason: string } {
  const graphql = code(error);
  const why = typeof error.extensions.reason === 'string' ? `: ${error.extensions.reason}` : '';
  // A WebSocket close reason is at most 123 bytes: the code and its reason, never the message's detail.
  const close = graphql === 'FORBIDDEN' ? CLOSE_FORBIDDEN : graphql === 'UNAUTHENTICATED' ? CLOSE_UNAUTHENTICATED
    : graphql === 'TOO_MANY_CONNECTIONS' ? CLOSE_TOO_MANY : CLOSE_BAD_REQUEST;
  return { close, reason: `${graphql}${why}`.slice(0, 120) };
}

/**
 * mercurius' onConnect, with a function that identifies the connection from its init payload and
 * its upgrade request: what that returns joins the connection's context; an AppError refuses the
 * connection, closed with 4401 (UNAUTHENTICATED), 4403 (FORBIDDEN), 4429 (TOO_MANY_CONNECTIONS) or 4400 (anything else) and the reason as the close
 * reason. mercurius calls onConnect as a method of the connection, which holds the socket and the
 * upgrade request; without them the refusal is mercurius' own (connection_error "Forbidden").
 */
export function onConnect<T extends object>(
  identify: (payload: Record<string, string>, upgrade: FastifyRequest | undefined, socket: SocketLike | undefined) => Promise<T>,
  code: (error: AppError) => string,
  log: (fields: Record<string, unknown>, message: string) => void,
) {
  return async function (this: ConnectionLike | undefined, data: { payload?: unknown }): Promise<T | false> {
    try {
      return await identify(initHeaders(data?.payload), this?.context?.request, this?.socket);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const refusal = refusalOf(error, code);
      log({ close: refusal.close, reason: refusal.reason }, 'subscription connection refused');
      this?.socket?.close(refusal.close, refusal.reason);
      return false;
    }
  };
}

/**
 * Whether a request is a WebSocket upgrade (a subscription connection): a handshake Node handed to
 * the 'upgrade' listener (raw.upgrade), not merely a request carrying an Upgrade header — such a
 * request runs as any other and must be identified as any other.
 */
export function isUpgrade(request: FastifyRequest): boolean {
  // Node sets `upgrade` on every request it parses (node:_http_common); @types/node omits it.
  return (request.raw as { upgrade?: boolean }).upgrade === true && String(request.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/**
 * Validates a subscription's document as HTTP requests are (the schema's rules and `rules`), and
 * refuses a source over `maxTokens`; throws the first error, which the client receives as the
 * subscription's error message.
 */
export function checkSubscription(schema: GraphQLSchema, document: DocumentNode, rules: ValidationRule[]): void {
  // mercurius takes a query sent as a JSON syntax tree as it is, unparsed: only GraphQL text is run.
  if (!document.loc?.source) throw new GraphQLError('query is not a GraphQL document', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  const errors = validate(schema, document, [...specifiedRules, ...rules]);
  if (errors.length) throw new GraphQLError(errors[0]!.message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
}

export function checkSubscriptionSource(source: string, maxTokens: number): void {
  try {
    parse(source, { maxTokens });
  } catch (error) {
    throw new GraphQLError(error instanceof Error ? error.message : 'the query does not parse', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  }
}
