// Errors are data: one AppError with a stable code. The HTTP error handler turns it into
// RFC 9457 problem+json; the GraphQL formatter into extensions.code. docs/errors.md lists every
// code in ERROR_CODES (a test keeps them in step).

export const ERROR_CODES = {
  bad_request: { status: 400, title: 'Bad request' },
  validation_failed: { status: 400, title: 'Request validation failed' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  invalid_token: { status: 401, title: 'Missing, invalid or expired access token' },
  insufficient_scope: { status: 403, title: 'Token lacks the required scope' },
  not_found: { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  tenant_not_found: { status: 404, title: 'Tenant not found' },
  client_not_found: { status: 404, title: 'Operator client not found' },
  tenant_misconfigured: { status: 409, title: 'The tenant\'s configuration stops the request' },
  // catalogue module
  race_not_found: { status: 404, title: 'Race not found' },
  runner_not_found: { status: 404, title: 'Runner not found' },
  race_status_conflict: { status: 409, title: 'Illegal race status change' },
  race_not_trading: { status: 409, title: 'The race\'s status does not allow this change' },
  runner_scratched: { status: 409, title: 'The runner is scratched' },
  // frontend users (docs/frontend.md)
  user_unauthenticated: { status: 401, title: 'Frontend user not authenticated' },
  user_auth_unavailable: { status: 503, title: 'Frontend user authentication unavailable' },
  too_many_subscriptions: { status: 429, title: 'Too many subscriptions on one connection' },
  subscriber_too_slow: { status: 429, title: 'Subscription ended: too many updates waited for it' },
  too_many_connections: { status: 429, title: 'Too many live connections for one user' },
  // wallet module
  wallet_not_configured: { status: 409, title: 'Tenant has no wallet configured' },
  private_address: { status: 400, title: 'The URL leads to an address that is not public' },
  wallet_call_not_found: { status: 404, title: 'Wallet call not found' },
  wallet_call_not_failed: { status: 409, title: 'Wallet call is not parked as failed' },
  wallet_no_reservation: { status: 409, title: 'refundBet without a successful reservation' },
  wallet_bet_has_calls: { status: 409, title: 'The bet already has wallet calls' },
  wallet_reservation_released: { status: 409, title: 'The bet\'s reservation was released' },
  // betting module
  invalid_selection: { status: 400, title: 'The bet\'s type, legs or selections are not a valid bet' },
  invalid_stake: { status: 400, title: 'The stake is not a positive amount in whole cents' },
  idempotency_conflict: { status: 409, title: 'The idempotency key was used for another bet' },
  race_not_open: { status: 409, title: 'The race is not open for betting' },
  product_not_offered: { status: 422, title: 'The product is not offered on the race' },
  price_required: { status: 400, title: 'A fixed-odds leg needs the price the user saw' },
  price_changed: { status: 409, title: 'The price is now lower than the price the user saw' },
  // settlement (docs/settlement.md)
  bet_not_found: { status: 404, title: 'Bet not found' },
  bet_state_conflict: { status: 409, title: 'The bet\'s state does not allow this change' },
  // back-office (docs/backoffice.md)
  api_key_invalid: { status: 401, title: 'Missing or unknown back-office API key' },
  tenant_forbidden: { status: 403, title: 'The tenant is not granted to this client' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorOptions {
  /** Extra members of the problem document (RFC 9457 extensions), e.g. a list of field errors. */
  extensions?: Record<string, unknown>;
  /** Response headers the error implies, e.g. WWW-Authenticate. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(readonly code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_CODES[code].status;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  get title(): string {
    return ERROR_CODES[this.code].title;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** How much of a client's value an error message may quote. */
export const ECHO_CHARS = 40;

/**
 * A client's value quoted in an error message: at most ECHO_CHARS characters of a string (then
 * "…"), and only the kind of anything else. Never serialises the whole value: a 3 MB string would
 * grow the answer, and a 5,000-deep array would overflow the stack of JSON.stringify.
 */
export function echo(value: unknown): string {
  if (typeof value === 'string') {
    const chars = Array.from(value.slice(0, ECHO_CHARS * 2)).slice(0, ECHO_CHARS).join('');
    return JSON.stringify(chars.length < value.length ? `${chars}…` : chars);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : `a value of type ${typeof value}`;
}

// Where a problem is, in words. Fields are paths: a location (querystring, params, headers, body)
// then JSON-pointer segments, e.g. `querystring/from`, `body/bets/3/amount`.
const PLACES: Record<string, string> = {
  querystring: 'querystring parameter', params: 'path parameter', headers: 'header', body: 'body field',
};
const WHOLE: Record<string, string> = { querystring: 'the query string', params: 'the path', headers: 'the headers', body: 'the body' };
/** Messages that read on from the field's name ("… is required"); any other follows a colon. */
const PREDICATE = /^(must|is|are|has|have|needs|repeats|may|cannot|should|does)\b/;

/** `querystring/from` → `querystring parameter "from"`; `body/bets/3/amount` → `body field "bets[3].amount"`. */
export function fieldLabel(field: string): string {
  const [where = '', ...segments] = field.split('/');
  const place = PLACES[where];
  if (!place) return fieldLabel(`body/${field}`);
  if (!segments.length || (segments.length === 1 && segments[0] === '')) return WHOLE[where]!;
  const path = segments.map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((text, s, i) => (/^\d+$/.test(s) ? `${text}[${s}]` : i === 0 ? s : `${text}.${s}`), '');
  return `${place} ${JSON.stringify(path)}`;
}

/** One problem as a sentence: `querystring parameter "from" is required`. */
export function problemSentence(field: string, message: string): string {
  const label = fieldLabel(field);
  return PREDICATE.test(message) ? `${label} ${message}` : `${label}: ${message}`;
}

/** The `detail` of a validation_failed answer: every problem as a sentence, joined by "; ". */
export function describeProblems(errors: ReadonlyArray<{ field: string; message: string }>): string {
  return errors.map((e) => problemSentence(e.field, e.message)).join('; ');
}

/**
 * Whose words a refusal of the CLI's and the admin API's shared configuration checks uses: a CLI
 * user reads option names (`--client-id`), an admin API caller the body's field names
 * (`client_id`), so each is told which of its own inputs is wrong.
 */
export type FieldNames = 'cli' | 'api';

/** `client_id` → `--client-id` for the CLI, `client_id` for the admin API. */
export function fieldNamer(names: FieldNames = 'cli'): (field: string) => string {
  return names === 'api' ? (field) => field : (field) => `--${field.replaceAll('_', '-')}`;
}
