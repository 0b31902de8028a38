// The upload client's access token (spec 4.2, 5.1): client credentials with HTTP Basic and the
// form fields grant_type and client_id; reused while unexpired (spec 5.1.3), renewed shortly
// before it expires, and at once when the service answers 401.
import { sendWithRetry, type HttpDeps, type RetryPolicy } from './retry.ts';

export class TokenRefusedError extends Error {}

/**
 * The token endpoint: --auth-url itself when its path ends in /token (spec 4.2 names
 * {auth_url}/token), else --auth-url with /oauth/token appended (wagerline's own endpoint).
 */
export function tokenEndpoint(authUrl: string): string {
  const url = new URL(authUrl);
  if (/\/token\/?$/.test(url.pathname)) return url.toString();
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/oauth/token`;
  return url.toString();
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined for Basic. */
export function basicCredentials(clientId: string, clientSecret: string): string {
  const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${form(clientId)}:${form(clientSecret)}`).toString('base64')}`;
}

/** Renew this long before expiry: a tenth of the lifetime, at most a minute. */
function marginMs(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 10);
}

export function createTokenClient(options: {
  url: string;
  clientId: string;
  clientSecret: string;
  policy: RetryPolicy;
  http: HttpDeps;
}) {
  const { url, clientId, clientSecret, policy, http } = options;
  let current: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  let issued = 0;

  async function fetchToken(): Promise<string> {
    const outcome = await sendWithRetry(async () => ({
      url,
      init: {
        method: 'POST',
        headers: {
          authorization: basicCredentials(clientId, clientSecret),
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }).toString(),
      },
    }), policy, http);
    if (!outcome.ok) throw new TokenRefusedError(`cannot reach the token endpoint ${url}: ${outcome.error}`);
    const { status, text } = outcome.answer;
    let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // described below
    }
    if (status !== 200 || typeof body.access_token !== 'string') {
      const why = typeof body.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : text.slice(0, 200);
      throw new TokenRefusedError(`the token endpoint ${url} answered ${status}: ${why}`);
    }
    const now = http.clock().getTime();
    // Spec 2.3: the upload interface states no default lifetime; without expires_in the token is
    // kept until the service refuses it (401).
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : Infinity;
    current = { token: body.access_token, renewAt: now + lifetime - marginMs(lifetime === Infinity ? 0 : lifetime) };
    issued += 1;
    return body.access_token;
  }

  return {
    /** A valid token: the cached one, or a new one (one request however many callers wait). */
    async get(): Promise<string> {
      if (current && http.clock().getTime() < current.renewAt) return current.token;
      pending ??= fetchToken().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    /** Forget a token the service refused; the next get() asks for a new one. */
    invalidate(token: string): void {
      if (current?.token === token) current = undefined;
    },
    /** How many tokens were obtained (for the summary and tests). */
    get issued(): number {
      return issued;
    },
  };
}

export type TokenClient = ReturnType<typeof createTokenClient>;
