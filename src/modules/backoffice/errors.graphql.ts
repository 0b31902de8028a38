// How the back-office answers errors (docs/backoffice-schema.md, "Errors"): every error carries a stable
// extensions.code; a message says what is wrong in the client's terms and never holds SQL, a stack
// or a token; anything unexpected is logged with the request id and answered as
// INTERNAL_SERVER_ERROR. The HTTP status follows the errors: 400 for a request that never reached a
// resolver (it does not parse, validate, or match the schema's types), 401 / 403 when every error
// is UNAUTHENTICATED / FORBIDDEN, 405 for a mutation over GET, 200 otherwise.
import type { FastifyReply } from 'fastify';
import { GraphQLError, type GraphQLFormattedError, type SourceLocation } from 'graphql';
import type { MercuriusContext } from 'mercurius';
import { connectionLost, DatabaseUnavailable } from '../../db/pool.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { bodyTooLarge } from '../../http/problem.ts';

export const GRAPHQL_CODES: Partial<Record<ErrorCode, string>> = {
  api_key_invalid: 'UNAUTHENTICATED', invalid_token: 'UNAUTHENTICATED',
  insufficient_scope: 'FORBIDDEN', tenant_forbidden: 'FORBIDDEN',
  bet_not_found: 'NOT_FOUND', bad_request: 'BAD_USER_INPUT',
  validation_failed: 'BAD_REQUEST', malformed_json: 'BAD_REQUEST', payload_too_large: 'PAYLOAD_TOO_LARGE', unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
};

const STATUS_CODES: Record<number, string> = { 400: 'BAD_REQUEST', 405: 'METHOD_NOT_ALLOWED', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' };
const ALL_OF: Record<string, number> = { UNAUTHENTICATED: 401, FORBIDDEN: 403, INTERNAL_SERVER_ERROR: 500 };
const MAX_MESSAGE = 300;

export function graphqlCode(code: ErrorCode): string {
  return GRAPHQL_CODES[code] ?? code.toUpperCase();
}

type Answered = GraphQLFormattedError & { extensions: { code: string } & Record<string, unknown> };

interface Failure extends Error {
  originalError?: Failure & { errors?: Failure[]; statusCode?: number; code?: string; validation?: unknown; extensions?: Record<string, unknown> };
  extensions?: Record<string, unknown>;
  locations?: readonly SourceLocation[];
  path?: ReadonlyArray<string | number>;
  code?: string;
  validation?: unknown;
}

type Execution = { data?: Record<string, unknown> | null; errors?: readonly Failure[] };

const clip = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);

/** An error of our own: its code, its primitive extensions (reason, status), its headers on the reply. */
function fromAppError(error: AppError, reply: FastifyReply | undefined): Answered {
  for (const [name, value] of Object.entries(error.headers)) reply?.header(name, value);
  const extra = Object.fromEntries(Object.entries(error.extensions).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)));
  return { message: clip(error.message), extensions: { ...extra, code: graphqlCode(error.code) } };
}

/**
 * An error of a subscription's start, which mercurius sends as it is (no errorFormatter sees it):
 * ours become a GraphQLError with the code and extensions an answer would carry.
 */
export function codedError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const { message, extensions } = fromAppError(error, undefined);
  return new GraphQLError(message, { extensions, originalError: error });
}

/** The errors a wrapper of the GraphQL server holds: the query's validation errors, a GET mutation. */
function fromWrapper(wrapper: NonNullable<Failure['originalError']>, reply: FastifyReply | undefined): Answered[] {
  if (wrapper.code === 'MER_ERR_METHOD_NOT_ALLOWED') {
    reply?.header('allow', 'POST');
    return [{ message: 'a mutation is sent with POST; GET carries queries only', extensions: { code: 'METHOD_NOT_ALLOWED' } }];
  }
  return wrapper.errors!.map((e) => {
    const own = typeof e.extensions?.code === 'string' ? e.extensions.code : undefined;
    const code = own ?? (e.code === 'MER_ERR_GQL_QUERY_DEPTH' ? 'QUERY_TOO_DEEP' : e.validation ? 'BAD_REQUEST' : 'GRAPHQL_VALIDATION_FAILED');
    return { message: clip(e.message), ...(e.locations ? { locations: e.locations } : {}), extensions: { ...(own ? e.extensions : {}), code } };
  });
}

/** A body the framework refused, said with what the request sent and what the endpoint takes. */
function refusal(status: number, message: string, reply: FastifyReply | undefined): string {
  if (status === 413 && reply) return bodyTooLarge(reply.request, 'endpoint');
  if (status !== 415 || !reply) return clip(message);
  const type = String(reply.request.headers['content-type'] ?? '').slice(0, 100);
  return `Content-Type ${JSON.stringify(type)} is not accepted: send the body as application/json, or the query alone as application/graphql`;
}

function answer(error: Failure, reply: FastifyReply | undefined, log: MercuriusContext['app']['log']): { answered: Answered[]; status?: number } {
  const original = connectionLost(error.originalError) ?? error.originalError;
  const at = { ...(error.locations ? { locations: error.locations } : {}), ...(error.path ? { path: error.path } : {}) };
  if (original instanceof DatabaseUnavailable) log.warn({ reason: original.reason }, 'back-office request failed: the database cannot be reached');
  if (original instanceof AppError) return { answered: [{ ...fromAppError(original, reply), ...at }], ...(!error.path && { status: original.status }) };
  if (original && Array.isArray(original.errors)) return { answered: fromWrapper(original, reply), status: original.statusCode ?? 400 };
  const status = original?.statusCode;
  if (!error.path && original && typeof status === 'number' && status >= 400 && status < 500) {
    return { answered: [{ message: refusal(status, original.message, reply), extensions: { code: STATUS_CODES[status] ?? 'BAD_REQUEST' } }], status };
  }
  if (!original && !error.path) return { answered: [{ message: clip(error.message), ...at, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }], status: 400 };
  log.error({ err: original ?? error }, 'back-office request failed');
  return { answered: [{ message: 'internal error; it has been logged with the request id', ...at, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] };
}

/** mercurius' errorFormatter for the back-office; `onErrors` hears every answered code (logs, metrics). */
export function backofficeErrorFormatter(onErrors: (reply: FastifyReply | undefined, codes: string[]) => void) {
  return (execution: Execution, ctx: MercuriusContext) => {
    const reply = ctx.reply as FastifyReply | undefined;
    const log = reply?.log ?? ctx.app.log;
    let status: number | undefined;
    const errors = (execution.errors ?? []).flatMap((error) => {
      const done = answer(error, reply, log);
      status ??= done.status;
      return done.answered;
    });
    const codes = errors.map((e) => e.extensions.code);
    onErrors(reply, codes);
    if (codes.includes('METHOD_NOT_ALLOWED')) status = 405;
    if (status === undefined && execution.data == null && codes.length > 0) {
      const all = codes.every((c) => c === codes[0]) ? ALL_OF[codes[0]!] : undefined;
      status = all ?? 200;
    }
    return { statusCode: status ?? 200, response: { data: execution.data ?? null, errors } };
  };
}
