// HTTP with retries for the upload client. Uploads are idempotent (a re-sent batch is "unchanged"),
// so a request whose outcome is unknown may be sent again: network errors, timeouts, 5xx, 408 and
// 429 are retried with exponential backoff and jitter; any other 4xx never is (the same body would
// fail again: a 413 says the batch itself is too large).
import { parseHttpDate } from './http-date.ts';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff; doubles per retry. */
  baseMs: number;
  /** Ceiling of one backoff. */
  maxMs: number;
  /**
   * Ceiling of one wait asked for by Retry-After: a longer one (a day, or a number of seconds no
   * server means) is waited this long, then the request is sent again, within `retries`.
   */
  maxRetryAfterMs: number;
  /** Bound on one request, connect to last byte. */
  timeoutMs: number;
}

export const DEFAULT_POLICY: RetryPolicy = { retries: 5, baseMs: 500, maxMs: 30_000, maxRetryAfterMs: 300_000, timeoutMs: 60_000 };

export interface HttpDeps {
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1): the jitter. */
  random: () => number;
  clock: () => Date;
}

export const realHttp = (): HttpDeps => ({
  fetch: globalThis.fetch,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
  clock: () => new Date(),
});

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** The outcome of a request after retries: an answer (any status), or the last network error. */
export type Outcome = { ok: true; answer: HttpAnswer; attempts: number } | { ok: false; error: string; attempts: number };

/** Equal jitter: half the exponential delay fixed, half random, so retries spread but never bunch at 0. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** retry);
  return Math.round(exp / 2 + random() * (exp / 2));
}

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from `now`;
 * undefined when absent or neither (then the caller backs off as it would without one).
 */
export function retryAfterMs(value: string | null, now: Date): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = parseHttpDate(trimmed, now);
  return date === undefined ? undefined : Math.max(0, date - now.getTime());
}

/** The wait before the next attempt: the server's Retry-After up to the ceiling, else our backoff. */
function waitMs(answer: HttpAnswer, retry: number, policy: RetryPolicy, deps: HttpDeps): number {
  const after = retryAfterMs(answer.headers.get('retry-after'), deps.clock());
  return after === undefined ? backoffMs(retry, policy, deps.random) : Math.min(after, policy.maxRetryAfterMs);
}

/**
 * Answers worth sending the same request again: the server's trouble (5xx), its limit (429), or
 * its giving up waiting for our request (408 Request Timeout: a slow link or a busy proxy, not the
 * body's fault).
 */
export function retryable(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

function describe(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'the request timed out';
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message ?? 'network error'} (${cause})` : (e.message ?? String(error));
}

/** Sends one request (built anew per attempt) with the retry policy. */
export async function sendWithRetry(
  build: () => Promise<{ url: string; init: RequestInit }>,
  policy: RetryPolicy,
  deps: HttpDeps,
): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt > policy.retries;
    let wait: number;
    // Outside the try: a failure to build the request (no token to be had) is not a network error.
    const { url, init } = await build();
    try {
      const response = await deps.fetch(url, { ...init, signal: AbortSignal.timeout(policy.timeoutMs) });
      const text = await response.text();
      const answer = { status: response.status, headers: response.headers, text };
      if (!retryable(response.status) || last) return { ok: true, answer, attempts: attempt };
      wait = waitMs(answer, attempt - 1, policy, deps);
    } catch (error) {
      if (last) return { ok: false, error: describe(error), attempts: attempt };
      wait = backoffMs(attempt - 1, policy, deps.random);
    }
    await deps.sleep(wait);
  }
}
