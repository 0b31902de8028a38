// The one HTTP error handler: every error of a REST route becomes RFC 9457 problem+json
// ({type, title, status, detail, code, ...extensions}). Client mistakes keep their 4xx status and a
// message that says what is wrong; anything unexpected is logged and answered with a generic 500,
// never with SQL or a stack trace.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { connectionLost, DatabaseUnavailable } from '../db/pool.ts';
import { AppError, describeProblems, echo, ERROR_CODES, type ErrorCode } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problemType(code: string): string {
  return `urn:wagerline:problem:${code}`;
}

/** At most this many entries of `errors` are listed; `errors_omitted` counts the rest. */
export const MAX_LISTED_ERRORS = 50;
/** No string of a problem document is longer (a client's value may hide in a message or an id). */
const MAX_TEXT = 300;
/** Hard cap on a problem document: entries of `errors` are dropped until it fits. */
export const MAX_PROBLEM_BYTES = 16 * 1024;

function clip(value: unknown): unknown {
  if (typeof value === 'string' && value.length > MAX_TEXT) return `${value.slice(0, MAX_TEXT)}…`;
  return value;
}

/** An error entry with every string member clipped (entries are flat: {index, id, field, message}). */
function clipEntry(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null) return clip(entry);
  return Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, typeof v === 'object' && v !== null ? echo(v) : clip(v)]));
}

/**
 * The one place a problem document is serialized: an invalid 3 MB upload must not get a 4 MB
 * answer, so strings are clipped, `errors` is listed up to MAX_LISTED_ERRORS (with the count of the
 * rest) and the whole stays under MAX_PROBLEM_BYTES.
 */
export function problemBody(error: AppError, instance: string): string {
  const { errors, ...extensions } = error.extensions;
  const doc: Record<string, unknown> = {
    type: problemType(error.code), title: error.title, status: error.status, detail: clip(error.message), code: error.code,
    instance: clip(instance), ...Object.fromEntries(Object.entries(extensions).map(([k, v]) => [k, clip(v)])),
  };
  if (!Array.isArray(errors)) return JSON.stringify(errors === undefined ? doc : { ...doc, errors: clip(errors) });
  let listed = errors.slice(0, MAX_LISTED_ERRORS).map(clipEntry);
  for (;;) {
    const omitted = errors.length - listed.length;
    const text = JSON.stringify({ ...doc, errors: listed, ...(omitted ? { errors_omitted: omitted } : {}) });
    if (Buffer.byteLength(text) <= MAX_PROBLEM_BYTES || listed.length === 0) return text;
    listed = listed.slice(0, Math.floor(listed.length / 2));
  }
}

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .status(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    // Serialized here, so a route's documented error schema can never drop an extension.
    .send(problemBody(error, reply.request.url.split('?')[0]!));
}

/** The problem+json body, for the OpenAPI document. */
const Problem = Type.Object({
  type: Type.String({ description: 'urn:wagerline:problem:<code>' }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String({ description: 'What is wrong, and where' }),
  code: Type.String({ description: 'Stable error code (docs/errors.md)' }),
  instance: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: true }),
    { description: `Every invalid field (validation_failed), the first ${MAX_LISTED_ERRORS}; uploads add index and id of each invalid bet` })),
  errors_omitted: Type.Optional(Type.Integer({ description: 'How many more errors there are than listed' })),
}, { additionalProperties: true });

const WHEN: Record<number, string> = {
  400: 'Invalid request: every problem is listed in errors',
  401: 'No, a bad or an expired access token',
  403: 'The token lacks the scope this route needs',
  404: 'No such resource: `detail` names what is missing',
  409: 'The change conflicts with the current state: `detail` says why',
  413: 'The body is larger than the limit',
  415: 'The body is not application/json',
  503: 'The service cannot answer now (the database is out of reach, or a migration is pending): try again later',
};

/** Route response schemas documenting the problem+json answers for these statuses. */
export function problemResponses(...statuses: Array<keyof typeof WHEN>) {
  return Object.fromEntries(statuses.map((status) => [status, {
    description: WHEN[status],
    content: { [PROBLEM_CONTENT_TYPE]: { schema: Problem } },
  }]));
}

/**
 * Route options for an answer whose schema is there for the OpenAPI document only: the answer goes
 * out as the service's JSON, as the CLI prints it, never through a serializer compiled from the
 * schema (which would drop a field the schema does not list, or turn a null into "").
 */
export const documentedAnswer = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };

/** A 200 answer of `schema`, for the OpenAPI document (routes that send it use documentedAnswer). */
export function okResponse(schema: object, description = 'Done') {
  return { 200: { description, content: { 'application/json': { schema } } } };
}

type AjvError = NonNullable<FastifyError['validation']>[number];

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false', object: 'an object',
  array: 'an array', null: 'null',
};
const FORMAT_WORDS: Record<string, string> = {
  date: 'a date YYYY-MM-DD', 'date-time': 'an ISO 8601 date-time with a UTC offset', uuid: 'a UUID', uri: 'a URI',
  email: 'an e-mail address', time: 'a time of day',
};
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Ajv's message for one schema violation, in our words (docs/errors.md). */
function ajvMessage(v: AjvError): string {
  const p = v.params as Record<string, unknown>;
  switch (v.keyword) {
    case 'required': return 'is required';
    case 'type': return `must be ${String(p.type).split(',').map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    case 'minimum': return `must be at least ${String(p.limit)}`;
    case 'maximum': return `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum': return `must be more than ${String(p.limit)}`;
    case 'exclusiveMaximum': return `must be less than ${String(p.limit)}`;
    case 'minLength': return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(Number(p.limit), 'character')} long`;
    case 'maxLength': return `must be at most ${plural(Number(p.limit), 'character')} long`;
    case 'minItems': return `must have at least ${plural(Number(p.limit), 'item')}`;
    case 'maxItems': return `must have at most ${plural(Number(p.limit), 'item')}`;
    case 'enum': return `must be one of ${(p.allowedValues as unknown[]).map((a) => JSON.stringify(a)).join(', ')}`;
    case 'const': return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern': return `must match the pattern ${String(p.pattern)}`;
    case 'format': return `must be ${FORMAT_WORDS[String(p.format)] ?? `in the format ${String(p.format)}`}`;
    case 'additionalProperties': return 'is not a known field';
    case 'anyOf': case 'oneOf': return 'does not match any of the allowed forms';
    default: return v.message ?? 'is invalid';
  }
}

/**
 * The errors of a union (anyOf/oneOf) as one: its branches' errors are dropped, and a union of
 * constants (Type.Union of literals) says which values it takes.
 */
function foldUnions(all: readonly AjvError[]): Array<{ v: AjvError; message: string }> {
  const unions = all.filter((v) => v.keyword === 'anyOf' || v.keyword === 'oneOf');
  const branchOf = (v: AjvError) => unions.find((u) => u !== v && v.schemaPath.startsWith(`${u.schemaPath}/`));
  return all.filter((v) => !branchOf(v)).map((v) => {
    if (!unions.includes(v)) return { v, message: ajvMessage(v) };
    const branches = all.filter((b) => branchOf(b) === v);
    const constants = branches.every((b) => b.keyword === 'const')
      ? branches.map((b) => JSON.stringify((b.params as { allowedValue?: unknown }).allowedValue)) : [];
    return { v, message: constants.length ? `must be one of ${constants.join(', ')}` : ajvMessage(v) };
  });
}

function fromValidation(error: FastifyError): AppError {
  const where = error.validationContext ?? 'body';
  const errors = foldUnions(error.validation ?? []).map(({ v, message }) => {
    const p = v.params as { missingProperty?: string; additionalProperty?: string };
    const child = v.keyword === 'required' ? p.missingProperty : v.keyword === 'additionalProperties' ? p.additionalProperty : undefined;
    return { field: `${where}${v.instancePath}${child === undefined ? '' : `/${child}`}`, message };
  });
  return new AppError('validation_failed', describeProblems(errors) || error.message, { extensions: { errors } });
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
};

/** Maps any thrown value to an AppError; unknown errors become internal_error. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const lost = connectionLost(error);
  if (lost) return lost;
  const e = error as FastifyError;
  if (e.validation) return fromValidation(e);
  const mapped = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return new AppError(mapped, e.message);
  if (e instanceof SyntaxError && e.statusCode === 400) return new AppError('malformed_json', `the body is not valid JSON: ${e.message}`);
  if (e.statusCode === 429) return new AppError('rate_limited', e.message);
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].status === e.statusCode);
    return new AppError(code ?? 'bad_request', e.message);
  }
  return new AppError('internal_error', 'an unexpected error occurred; it has been logged', { cause: error });
}

/** The problem for an error the router raises before any route runs (Fastify's frameworkErrors). */
export function frameworkProblem(error: FastifyError): AppError {
  if (error.code === 'FST_ERR_BAD_URL') {
    return new AppError('bad_request', 'the path is not a valid URL: a %-escape in it is malformed or does not encode UTF-8');
  }
  return toAppError(error);
}

/**
 * A body refused for its size, said alike by the REST routes and both GraphQL endpoints: with the
 * limit in bytes, so that a client knows how far to cut it (`taker`: what the client called).
 */
export function bodyTooLarge(request: FastifyRequest, taker: 'route' | 'endpoint'): string {
  return `the body is larger than this ${taker} takes: at most ${request.routeOptions.bodyLimit} bytes`;
}

/** The framework's refusals of a body, said with what the request sent and what the route takes. */
function bodyRefusal(error: FastifyError, request: FastifyRequest): AppError | undefined {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const type = String(request.headers['content-type'] ?? '').slice(0, 100);
    return new AppError('unsupported_media_type', `Content-Type ${JSON.stringify(type)} is not accepted: send the body as application/json`);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('payload_too_large', bodyTooLarge(request, 'route'));
  }
  return undefined;
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request: FastifyRequest, reply) => {
    const problem = bodyRefusal(error as FastifyError, request) ?? toAppError(error);
    // A database out of reach fails every request alike: one line each, the reason without a stack.
    if (problem instanceof DatabaseUnavailable) request.log.warn({ reason: problem.reason }, 'request failed: the database cannot be reached');
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new AppError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
