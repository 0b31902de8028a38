// What a wallet response means, and when a failed call is tried again (spec 2.6, 7.2, 8).
// Pure functions: the worker and the synchronous reserve share them, and unit tests pin them.

/** spec 8: up to five retries after the first failure, 5 min, 10 min, 20 min, then hourly. */
export const RETRY_DELAYS_MS: readonly number[] = [5, 10, 20, 60, 60].map((minutes) => minutes * 60_000);
export const MAX_RETRIES = RETRY_DELAYS_MS.length;

export type Verdict =
  /** 2xx with a JSON body whose success is true. */
  | 'success'
  /** Outcome unknown or temporary: network error, timeout, 5xx, 408, 429, a body that is not the spec's. */
  | 'retry'
  /** The wallet refused the transaction for good: any other 4xx (a settleBet is retried anyway: outcome.ts). */
  | 'final'
  /**
   * Our credentials were refused: a 401 (a bearer token is renewed once and the call sent again at
   * once), or a 403 from a wallet that takes an API key (see classifyResponse).
   */
  | 'unauthorized';

export interface Classified {
  verdict: Verdict;
  /** The error body's code and message when the wallet sent the spec's error shape (2.6). */
  code?: string;
  message?: string;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What an answer means. `auth` is how the call was authenticated: a wallet taking an API key may
 * refuse a wrong key with 403 as well as 401 (spec 5.3 leaves that option's shape unshown;
 * tenant set-wallet and wallet-check take either as the key refused). With client credentials a
 * refused token is a 401 (spec 7.2) and a 403 is the wallet refusing the transaction.
 */
export function classifyResponse(status: number, bodyText: string, auth: 'client_credentials' | 'api_key' = 'client_credentials'): Classified {
  const body = parseJson(bodyText) as Record<string, unknown> | undefined;
  const shaped = body && typeof body === 'object' && !Array.isArray(body) ? body : undefined;
  const code = typeof shaped?.code === 'string' ? shaped.code : undefined;
  const message = typeof shaped?.message === 'string' ? shaped.message : undefined;
  const details = { ...(code !== undefined && { code }), ...(message !== undefined && { message }) };
  if (status >= 200 && status < 300) {
    // A 2xx without {success: true} says nothing certain: treat it as an unknown outcome.
    return shaped?.success === true ? { verdict: 'success' } : { verdict: 'retry', ...details };
  }
  if (status === 401 || (status === 403 && auth === 'api_key')) return { verdict: 'unauthorized', ...details };
  if (status === 408 || status === 429 || status >= 500) return { verdict: 'retry', ...details };
  if (status >= 400) return { verdict: 'final', ...details };
  return { verdict: 'retry', ...details }; // 1xx/3xx: not an answer (redirects are not followed)
}

export type NextStep =
  | { status: 'pending'; nextAttemptAt: Date; failures: number }
  | { status: 'failed'; failures: number };

/** After a failed attempt: when to try again, or park the call when the retries are spent. */
export function afterFailure(failuresBefore: number, verdict: 'retry' | 'final', now: Date): NextStep {
  const failures = failuresBefore + 1;
  if (verdict === 'final' || failures > MAX_RETRIES) return { status: 'failed', failures };
  return { status: 'pending', failures, nextAttemptAt: new Date(now.getTime() + RETRY_DELAYS_MS[failures - 1]!) };
}
