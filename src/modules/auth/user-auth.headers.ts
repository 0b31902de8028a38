// What a frontend request carries (docs/frontend.md): X-Tenant-Id names the tenant, Authorization
// carries the user's token as a bearer, and in custom mode X-Host-State-User carries the user
// metadata of the host.state.user event (spec 5.2, 6). Every refusal is an AppError whose message
// helps the integrator and never repeats the token.
import { AppError } from '../../errors.ts';
import { isUuid } from '../../racing/values.ts';
import { unstorable } from '../../http/text-rules.ts';

export type Headers = Record<string, string | string[] | undefined>;

/** The metadata forwarded in reserve (spec 2.4): all strings, userId a UUID. */
export interface UserMetadata {
  userId: string;
  brandName: string;
  brandUserId: string;
  data: string;
}

/** Why a frontend user was refused: `extensions.reason` of user_unauthenticated (docs/frontend.md). */
export type UserAuthReason =
  | 'token_missing' | 'token_malformed' | 'tenant_unknown' | 'tenant_disabled' | 'tenant_not_configured' | 'alg_not_allowed'
  | 'kid_missing' | 'unknown_kid' | 'key_too_small' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'claim_missing'
  | 'wrong_client_id' | 'tenant_mismatch' | 'wrong_token_use' | 'username_not_uuid' | 'wrong_audience'
  | 'aud_username_mismatch' | 'metadata_missing' | 'metadata_invalid';

/** Longest bearer token accepted: far above any real JWT, far below Node's header limit. */
export const MAX_TOKEN_LENGTH = 8192;
const MAX_FIELD_LENGTH = { userId: 36, brandName: 200, brandUserId: 200, data: 4096 } as const;

export function unauthenticated(reason: UserAuthReason, message: string): AppError {
  // RFC 6750 §3: a request without credentials gets the challenge without an error code.
  const challenge = reason === 'token_missing'
    ? 'Bearer realm="wagerline"'
    : `Bearer realm="wagerline", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`;
  return new AppError('user_unauthenticated', message, {
    extensions: { reason },
    headers: { 'www-authenticate': challenge },
  });
}

/** One value of a header; a header sent twice is ambiguous, so refused. */
function single(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) {
    if (value.length > 1) throw new AppError('bad_request', `the ${name} header is sent ${value.length} times; send it once`);
    return value[0];
  }
  return value;
}

/** The tenant the request names (X-Tenant-Id), lower-cased. */
export function tenantIdOf(headers: Headers): string {
  const raw = single(headers, 'x-tenant-id')?.trim();
  if (!raw) throw new AppError('bad_request', 'the X-Tenant-Id header is required: the UUID of the tenant whose frontend sends the request');
  if (!isUuid(raw)) throw new AppError('bad_request', 'the X-Tenant-Id header must be a tenant UUID');
  return raw.toLowerCase();
}

/** The bearer token of the Authorization header. */
export function bearerOf(headers: Headers): string {
  let raw: string | undefined;
  try {
    raw = single(headers, 'authorization');
  } catch {
    throw unauthenticated('token_malformed', 'the Authorization header is sent more than once');
  }
  if (!raw) throw unauthenticated('token_missing', 'a user token is required: Authorization: Bearer <token>');
  const match = /^Bearer +(\S+) *$/i.exec(raw);
  if (!match) throw unauthenticated('token_malformed', 'the Authorization header is not "Bearer <token>"');
  if (match[1]!.length > MAX_TOKEN_LENGTH) throw unauthenticated('token_malformed', `the token is longer than ${MAX_TOKEN_LENGTH} characters`);
  return match[1]!;
}

/**
 * The JSON object of X-Host-State-User: plain JSON text (it starts with "{"), or — for values
 * outside ASCII, which HTTP header values cannot carry as such — the base64url of its UTF-8 bytes.
 */
function decodeHostState(raw: string): unknown {
  const text = raw.startsWith('{') ? raw : Buffer.from(raw, 'base64url').toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw unauthenticated('metadata_invalid', 'X-Host-State-User is neither a JSON object nor the base64url of one');
  }
}

/** The host.state.user metadata of a custom-mode request (docs/frontend.md). */
export function hostStateUserOf(headers: Headers): UserMetadata {
  let raw: string | undefined;
  try {
    raw = single(headers, 'x-host-state-user')?.trim();
  } catch {
    throw unauthenticated('metadata_invalid', 'the X-Host-State-User header is sent more than once');
  }
  if (!raw) {
    throw unauthenticated('metadata_missing', 'custom mode needs the X-Host-State-User header: the host.state.user metadata {userId, brandName, brandUserId, data}');
  }
  const value = decodeHostState(raw);
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw unauthenticated('metadata_invalid', 'X-Host-State-User must be a JSON object {userId, brandName, brandUserId, data}');
  }
  const meta = value as Record<string, unknown>;
  for (const key of ['userId', 'brandName', 'brandUserId', 'data'] as const) {
    const field = meta[key];
    if (typeof field !== 'string') throw unauthenticated('metadata_invalid', `X-Host-State-User: ${key} must be a string`);
    if (field.length > MAX_FIELD_LENGTH[key]) throw unauthenticated('metadata_invalid', `X-Host-State-User: ${key} is longer than ${MAX_FIELD_LENGTH[key]} characters`);
    // The fields are stored with the reserve as JSON, which PostgreSQL refuses with either in it.
    if (unstorable(field)) {
      throw unauthenticated('metadata_invalid', `X-Host-State-User: ${key} holds U+0000 or a lone surrogate (\\uD800–\\uDFFF unpaired)`);
    }
  }
  if (!isUuid(meta.userId as string)) throw unauthenticated('metadata_invalid', 'X-Host-State-User: userId must be the user\'s UUID');
  // Only the four fields of spec 2.4 are forwarded; other members are ignored (forward compatible).
  return {
    userId: (meta.userId as string).toLowerCase(),
    brandName: meta.brandName as string,
    brandUserId: meta.brandUserId as string,
    data: meta.data as string,
  };
}
