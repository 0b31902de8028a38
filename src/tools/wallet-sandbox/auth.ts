// The two ways a wallet authenticates the service (spec 5.3): client credentials through
// POST /auth/token (spec 4.3, response per 2.3) and then a bearer token; or a shared API key in a
// header (the header name is not given by the spec: x-api-key by default).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { errorAnswer, type Answer } from './codes.ts';
import type { SandboxAuth } from './types.ts';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface Authenticator {
  /** POST /auth/token. */
  issue(body: unknown, brokenShape: boolean): Answer;
  /** undefined when the request may proceed, else the 401 answer. */
  check(headers: Record<string, string | string[] | undefined>): Answer | undefined;
  revokeAll(): void;
}

export function createAuthenticator(auth: SandboxAuth, now: () => Date): Authenticator {
  const tokens = new Map<string, number>(); // token → expiry (ms since epoch)

  if (auth.kind === 'api_key') {
    const header = (auth.header ?? 'x-api-key').toLowerCase();
    return {
      issue: () => errorAnswer('NOT_FOUND', 'this wallet authenticates with an API key: there is no /auth/token'),
      check(headers) {
        const given = headers[header];
        if (typeof given === 'string' && same(given, auth.apiKey)) return undefined;
        return errorAnswer('INVALID_API_KEY', `missing or wrong API key in the ${header} header`);
      },
      revokeAll: () => undefined,
    };
  }

  const ttl = auth.tokenTtlSeconds ?? 3600;
  return {
    issue(body, brokenShape) {
      // A body that was sent but is no object (not JSON, a JSON string or array): say so, rather
      // than that it names no grant, so a caller looks at how it encodes the request.
      if (body !== '' && body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        return errorAnswer('VALIDATION_ERROR', 'the body must be a JSON object {"grant_type": "client_credentials", "client_id", "client_secret"} '
          + '(or the same fields as an application/x-www-form-urlencoded form)');
      }
      const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      if (b.grant_type !== 'client_credentials') {
        return errorAnswer('UNSUPPORTED_GRANT_TYPE', 'grant_type must be "client_credentials"');
      }
      if (typeof b.client_id !== 'string' || typeof b.client_secret !== 'string'
        || !same(b.client_id, auth.clientId) || !same(b.client_secret, auth.clientSecret)) {
        return errorAnswer('INVALID_CLIENT', 'unknown client_id or wrong client_secret');
      }
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, now().getTime() + ttl * 1000);
      if (brokenShape) return { status: 200, body: { access_token: token } };
      return { status: 200, body: { access_token: token, expires_in: ttl, token_type: 'bearer', scope: null } };
    },
    check(headers) {
      const header = headers.authorization;
      const match = typeof header === 'string' ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (!match) return errorAnswer('INVALID_TOKEN', 'missing bearer token in the Authorization header');
      const expiry = tokens.get(match[1]!);
      if (expiry === undefined) return errorAnswer('INVALID_TOKEN', 'unknown or revoked token');
      if (expiry <= now().getTime()) {
        tokens.delete(match[1]!);
        return errorAnswer('INVALID_TOKEN', 'token expired');
      }
      return undefined;
    },
    revokeAll: () => tokens.clear(),
  };
}
