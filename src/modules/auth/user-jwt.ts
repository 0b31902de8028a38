// Verification of frontend users' JWTs (spec 5.2): RS256 only, the key chosen by kid from the
// tenant's JWKS, exp/nbf with 60 s leeway on the injected clock, then the claims the spec names:
// client_id (the tenant's), token_use = access, aud = username = the user's UUID. Each refusal
// names one reason (docs/frontend.md); no message carries the token or a raw claim it could hide in.
import { createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../../errors.ts';
import { publicOnlyFetch } from '../../net/private-network.ts';
import { redactUrlCredentials } from '../../net/redact-url.ts';
import { unauthenticated } from './user-auth.headers.ts';
import { isUuid } from '../../racing/values.ts';
import { createVerifiedTokenCache } from './verified-tokens.ts';

export const ALLOWED_ALG = 'RS256';
/** The most clock skew forgiven on exp and nbf (the 60 s). */
export const LEEWAY_SECONDS = 60;

/** What the verifier needs of a jwt-mode tenant. `version` changes whenever its configuration does. */
export interface JwtTenant {
  tenantId: string;
  jwksUrl: string;
  /** Fetch the JWKS from public addresses only (the platform did not allow a private one). */
  publicOnly?: boolean;
  clientId: string;
  version: string;
}

export interface JwtVerifierOptions {
  clock: () => Date;
  /** Whether a client_id is configured for a tenant other than this one (a tenant mismatch). */
  isOtherTenantsClientId: (tenantId: string, clientId: string) => Promise<boolean>;
  /** Least time between two JWKS fetches caused by unknown kids (jose's cooldownDuration). */
  cooldownMs: number;
  /** Bound on one JWKS fetch: the user is waiting. */
  timeoutMs: number;
  /** Keys are refetched when older than this, even when every kid is known (key revocation). */
  cacheMaxAgeMs: number;
  /** How long a verified token is reused without checking its signature again (real ms; 0: never). */
  verifiedTtlMs: number;
  /** Most verified tokens kept at once. */
  verifiedMaxEntries: number;
  /** Where a JWKS that cannot be fetched or read is told to the operator (never with the token). */
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

class KeySetUnavailable extends Error {}

/** The tenant's key for the token's kid is RSA under 2048 bits: RS256 refuses it (jose throws a TypeError). */
class KeyTooSmall extends Error {}

const MIN_RSA_BITS = 2048;

function rsaBits(key: unknown): number | undefined {
  const algorithm = (key as { algorithm?: { modulusLength?: unknown } } | null)?.algorithm;
  return typeof algorithm?.modulusLength === 'number' ? algorithm.modulusLength : undefined;
}

/** Safe to echo in a message or a header: a short code, no spaces, quotes or line breaks. */
const shown = (value: unknown) => (typeof value === 'string' && /^[A-Za-z0-9_.-]{1,32}$/.test(value) ? `"${value}"` : 'another value');

function keySetUnavailable(cause: unknown): AppError {
  return new AppError('user_auth_unavailable', 'the tenant\'s JWKS could not be fetched or read; try again shortly (the operator should check its jwks_url)', {
    extensions: { reason: 'jwks_unavailable' },
    headers: { 'retry-after': '5' },
    cause,
  });
}

/** Maps a jose error of jwtVerify to the one reason the user is refused. */
function refusal(error: unknown): unknown {
  if (error instanceof KeySetUnavailable) return keySetUnavailable(error.cause);
  if (error instanceof KeyTooSmall) {
    return unauthenticated('key_too_small', `the tenant's key for this kid is RSA under ${MIN_RSA_BITS} bits, which ${ALLOWED_ALG} does not accept (the operator should rotate to a larger key)`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) return unauthenticated('unknown_kid', 'no key of the tenant\'s JWKS has this token\'s kid');
  if (error instanceof errors.JWKSMultipleMatchingKeys) return unauthenticated('unknown_kid', 'several keys of the tenant\'s JWKS have this token\'s kid');
  if (error instanceof errors.JWSSignatureVerificationFailed) return unauthenticated('bad_signature', 'the token\'s signature does not verify with the tenant\'s key');
  if (error instanceof errors.JOSEAlgNotAllowed) return unauthenticated('alg_not_allowed', `only ${ALLOWED_ALG} tokens are accepted`);
  if (error instanceof errors.JWTExpired) {
    const exp = error.payload.exp;
    const at = typeof exp === 'number' ? ` at ${new Date(exp * 1000).toISOString()}` : '';
    return unauthenticated('expired', `the token expired${at} (${LEEWAY_SECONDS} s leeway)`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    // Only a failed time check is "not yet valid"; an nbf that is not a number is malformed (below).
    if (error.claim === 'nbf' && error.reason === 'check_failed') return unauthenticated('not_yet_valid', `the token is not valid yet (nbf is in the future beyond ${LEEWAY_SECONDS} s leeway)`);
    if (error.reason === 'missing') return unauthenticated('claim_missing', `the token has no ${shown(error.claim)} claim`);
    return unauthenticated('token_malformed', `the token's ${shown(error.claim)} claim is invalid`);
  }
  if (error instanceof errors.JOSEError) return unauthenticated('token_malformed', 'the token is not a well-formed signed JWT');
  return error; // not a refusal: an unexpected failure, for the caller's 500
}

function checkHeader(token: string): void {
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw unauthenticated('token_malformed', 'the token is not a JWT');
  }
  // Refused before any key is looked up: `none`, HS* (e.g. signed with the public key as the
  // secret), ES*, PS* and anything else never reach a verifier.
  if (header.alg !== ALLOWED_ALG) throw unauthenticated('alg_not_allowed', `the token is signed with alg ${shown(header.alg)}; only ${ALLOWED_ALG} is accepted`);
  if (typeof header.kid !== 'string' || !header.kid) throw unauthenticated('kid_missing', 'the token\'s header has no kid: the key is chosen by kid');
}

/** The user id of verified claims: token_use, username and aud as spec 5.2 requires. */
export function userIdOf(claims: JWTPayload): string {
  const { token_use: use, username } = claims;
  if (use === undefined) throw unauthenticated('claim_missing', 'the token has no token_use claim');
  if (use !== 'access') throw unauthenticated('wrong_token_use', `token_use is ${shown(use)}; an access token (token_use "access") is required`);
  if (typeof username !== 'string') throw unauthenticated('claim_missing', 'the token has no username claim (the user\'s UUID)');
  if (!isUuid(username)) throw unauthenticated('username_not_uuid', 'the username claim must be the user\'s UUID');
  if (claims.aud === undefined) throw unauthenticated('claim_missing', 'the token has no aud claim (the user\'s UUID)');
  const aud = Array.isArray(claims.aud) && claims.aud.length === 1 ? claims.aud[0] : claims.aud;
  if (typeof aud !== 'string' || !isUuid(aud)) throw unauthenticated('wrong_audience', 'aud must be one value: the user\'s UUID');
  if (aud.toLowerCase() !== username.toLowerCase()) throw unauthenticated('aud_username_mismatch', 'aud and username must be the same user UUID');
  return username.toLowerCase();
}

export function createUserJwtVerifier(options: JwtVerifierOptions) {
  const sets = new Map<string, { url: string; version: string; getKey: JWTVerifyGetKey }>();
  const verified = createVerifiedTokenCache({ ttlMs: options.verifiedTtlMs, maxEntries: options.verifiedMaxEntries, leewaySeconds: LEEWAY_SECONDS });

  /** One remote key set per tenant and URL, cached; a new one when the configuration changes. */
  function keySetOf(tenant: JwtTenant): JWTVerifyGetKey {
    const known = sets.get(tenant.tenantId);
    if (known && known.url === tenant.jwksUrl && known.version === tenant.version) return known.getKey;
    const remote = createRemoteJWKSet(new URL(tenant.jwksUrl), {
      cooldownDuration: options.cooldownMs,
      timeoutDuration: options.timeoutMs,
      cacheMaxAge: options.cacheMaxAgeMs,
      ...(tenant.publicOnly && { [customFetch]: publicOnlyFetch }),
    });
    const getKey: JWTVerifyGetKey = async (header, token) => {
      let key;
      try {
        key = await remote(header, token);
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
        // The URL's query may hold the identity provider's credential: never logged as it is.
        const url = redactUrlCredentials(tenant.jwksUrl);
        const err = String(error).replaceAll(tenant.jwksUrl, url);
        options.log?.('tenant JWKS unavailable: check its jwks_url', { module: 'user-auth', tenant: tenant.tenantId, jwks_url: url, err });
        throw new KeySetUnavailable('JWKS unavailable', { cause: error });
      }
      const bits = rsaBits(key);
      if (bits !== undefined && bits < MIN_RSA_BITS) {
        options.log?.('tenant JWKS key too small for RS256: the operator should rotate it', { module: 'user-auth', tenant: tenant.tenantId, kid: header.kid, bits });
        throw new KeyTooSmall();
      }
      return key;
    };
    sets.set(tenant.tenantId, { url: tenant.jwksUrl, version: tenant.version, getKey });
    return getKey;
  }

  /**
   * client_id is read before the signature is checked: a token of another tenant (or another
   * client) is refused without fetching this tenant's keys. Refusing on unverified claims is safe;
   * accepting never happens before the signature and the times verify.
   */
  async function checkClientId(token: string, tenant: JwtTenant): Promise<void> {
    let clientId: unknown;
    try {
      clientId = decodeJwt(token).client_id;
    } catch {
      throw unauthenticated('token_malformed', 'the token is not a well-formed JWT (its payload is not a JSON object)');
    }
    if (clientId === tenant.clientId) return;
    if (typeof clientId !== 'string') throw unauthenticated('claim_missing', 'the token has no client_id claim');
    if (await options.isOtherTenantsClientId(tenant.tenantId, clientId)) {
      throw unauthenticated('tenant_mismatch', 'the token was issued for another tenant than X-Tenant-Id names');
    }
    throw unauthenticated('wrong_client_id', 'the token\'s client_id is not the one configured for this tenant');
  }

  return {
    /** Verifies a user token for a jwt-mode tenant; returns the user id (username, lower-cased) and the token's exp. */
    async verify(token: string, tenant: JwtTenant): Promise<{ userId: string; exp: number }> {
      const now = options.clock();
      const known = verified.get(tenant.tenantId, tenant.version, token, now);
      if (known !== undefined) return known;
      checkHeader(token);
      await checkClientId(token, tenant);
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, keySetOf(tenant), {
          algorithms: [ALLOWED_ALG],
          clockTolerance: LEEWAY_SECONDS,
          currentDate: now,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        throw refusal(error);
      }
      const userId = userIdOf(claims);
      verified.set(tenant.tenantId, tenant.version, token, { userId, exp: claims.exp!, nbf: claims.nbf });
      return { userId, exp: claims.exp! };
    },

    /** Verifications answered from the cache of verified tokens, and how many it keeps. */
    verifiedStats: () => verified.stats(),
  };
}

export type UserJwtVerifier = ReturnType<typeof createUserJwtVerifier>;
