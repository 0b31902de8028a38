// The checker's HTTP side: authentication (spec 5.3), one POST per call with the 10 s bound of
// spec 8 over the whole exchange, and a record of every call's time for the response-time check.
// Requests go through undici, as delivery's do: fetch() refuses the WHATWG "bad ports" (6000,
// 10080, …), where a wallet wagerline reaches would then be impossible to check.
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signature } from '../../wallet-protocol/signature.ts';
import type { WalletRequest } from './bodies.ts';

export type CheckAuth =
  | { kind: 'client_credentials'; clientId: string; clientSecret: string }
  | { kind: 'api_key'; apiKey: string; header?: string };

export interface Outcome {
  /** undefined when no HTTP answer came (timeout, network error). */
  status?: number;
  text: string;
  /** The parsed JSON body, undefined when the body is not JSON. */
  json?: unknown;
  ms: number;
  error?: string;
}

export interface TimedCall {
  method: 'GET' | 'POST';
  op: string;
  ms: number;
  status?: number;
  timedOut: boolean;
}

/** After this many calls without an answer within the bound, later calls are not sent. */
const GIVE_UP_AFTER_TIMEOUTS = 3;

/** Connection errors that mean nothing answers at the address: no check can tell anything more. */
const NOTHING_ANSWERS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
  EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** Nothing answers at the wallet's URL: the run stops at the first such call (docs/wallet-check.md, exit 3). */
export class WalletUnreachable extends Error {
  constructor(readonly url: string, readonly code: string, call: string, callsBefore: number) {
    super(`nothing answers at ${url}: ${NOTHING_ANSWERS[code]} (${code}) on ${call}, ` +
      (callsBefore ? `after ${callsBefore} answered call(s); the run stopped there` : 'the first call; no check was run'));
  }
}

/** `signingSecret`: sign every transaction call as wagerline does (docs/wallet.md, Authentication and signing). */
export function createCheckClient(baseUrl: string, auth: CheckAuth, timeoutMs: number, signingSecret?: string) {
  const url = baseUrl.replace(/\/+$/, '');
  const { origin, pathname } = new URL(url);
  const prefix = pathname.replace(/\/+$/, '');
  const calls: TimedCall[] = [];
  // The token as wagerline keeps it (docs/wallet.md, Authentication): shared by concurrent calls,
  // renewed shortly before expires_in runs out, dropped on a 401.
  let token: { value: Promise<string>; expiresAt: number } | undefined;

  const agent = new Agent({ connect: { timeout: timeoutMs } });

  async function send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, payload?: string): Promise<Outcome> {
    const timeouts = calls.filter((c) => c.timedOut).length;
    if (timeouts >= GIVE_UP_AFTER_TIMEOUTS) {
      return { text: '', ms: 0, error: `not sent: ${timeouts} calls already got no answer within ${timeoutMs} ms` };
    }
    const started = performance.now();
    const op = path.replace(/^\//, '').split('?')[0]!;
    const signed: Record<string, string> = {};
    if (signingSecret && payload !== undefined && op !== 'auth/token') {
      const timestamp = String(Math.floor(Date.now() / 1000));
      signed[TIMESTAMP_HEADER] = timestamp;
      signed[SIGNATURE_HEADER] = signature(signingSecret, timestamp, payload);
    }
    const bound = AbortSignal.timeout(timeoutMs);
    try {
      const res = await agent.request({
        origin, path: `${prefix}${path}`, method,
        headers: { accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...signed, ...headers },
        body: payload,
        signal: bound,
      });
      const text = await res.body.text();
      const ms = Math.round(performance.now() - started);
      calls.push({ method, op, ms, status: res.statusCode, timedOut: false });
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, text, json, ms };
    } catch (error) {
      const ms = Math.round(performance.now() - started);
      const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
      // undici puts the socket's code on the error itself; keep the cause too, for wrapped errors.
      const code = e.code !== undefined && e.code in NOTHING_ANSWERS ? e.code : e.cause?.code;
      if (code !== undefined && code in NOTHING_ANSWERS) throw new WalletUnreachable(url, code, `${method} ${path.split('?')[0]}`, calls.length);
      const timedOut = bound.aborted;
      calls.push({ method, op, ms, timedOut });
      return { text: '', ms, error: timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${e.cause?.code ?? e.code ?? e.cause?.message ?? e.message}` };
    }
  }

  async function requestToken(clientSecret?: string): Promise<Outcome> {
    if (auth.kind !== 'client_credentials') throw new Error('no token endpoint with API-key authentication');
    return send('POST', '/auth/token', {}, JSON.stringify({
      grant_type: 'client_credentials', client_id: auth.clientId, client_secret: clientSecret ?? auth.clientSecret,
    }));
  }

  async function fetchToken(): Promise<{ value: string; ttl: number }> {
    const res = await requestToken();
    const body = res.json as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (typeof body?.access_token !== 'string') throw new Error(`cannot get a token from /auth/token: ${describe(res)}`);
    // wagerline's rule: 300 s without a usable expires_in.
    return { value: body.access_token, ttl: typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300 };
  }

  async function bearer(): Promise<string> {
    if (!token || Date.now() >= token.expiresAt) {
      const fresh: NonNullable<typeof token> = { value: Promise.resolve(''), expiresAt: Infinity };
      // Renewed 10% of its lifetime early, at most a minute, as wagerline does.
      fresh.value = fetchToken().then(({ value, ttl }) => {
        fresh.expiresAt = Date.now() + ttl * 1000 - Math.min(60_000, ttl * 100);
        return value;
      });
      token = fresh;
      fresh.value.catch(() => { if (token === fresh) token = undefined; }); // the next call asks again
    }
    return token.value;
  }

  async function authHeaders(): Promise<Record<string, string>> {
    if (auth.kind === 'api_key') return { [auth.header ?? 'x-api-key']: auth.apiKey };
    return { authorization: `Bearer ${await bearer()}` };
  }

  /**
   * Forgets a token the wallet refused with a 401, unless a concurrent call already replaced or
   * dropped it; true when the call is worth sending again (with a token, not with an API key).
   */
  async function dropToken(refused: Record<string, string>): Promise<boolean> {
    if (auth.kind !== 'client_credentials') return false;
    const current = token;
    if (current && `Bearer ${await current.value.catch(() => '')}` === refused.authorization && token === current) token = undefined;
    return true;
  }

  /**
   * A call with the current credential; on a 401, as wagerline does, a new token and the call sent
   * again once at once (both exchanges timed). A wallet that refuses its own fresh token still fails.
   */
  async function authorised(method: 'GET' | 'POST', path: string, extra: Record<string, string>, payload?: string): Promise<Outcome> {
    const headers = await authHeaders();
    const first = await send(method, path, { ...headers, ...extra }, payload);
    if (first.status !== 401 || !(await dropToken(headers))) return first;
    return send(method, path, { ...(await authHeaders()), ...extra }, payload);
  }

  /** Headers that carry a credential the wallet must refuse. */
  function invalidAuthHeaders(): Record<string, string> {
    if (auth.kind === 'api_key') return { [auth.header ?? 'x-api-key']: `${auth.apiKey}-invalid` };
    return { authorization: 'Bearer wallet-check-invalid-token' };
  }

  return {
    calls,
    /** How the wallet is authenticated: what it may answer a bad credential depends on it. */
    authKind: auth.kind,
    requestToken,
    invalidAuthHeaders,
    /**
     * A transaction call, with the Idempotency-Key header wagerline sends on each (docs/wallet.md).
     * `headers`: a credential of the caller's own (the invalid-token check), sent as is, never renewed.
     */
    async post(req: WalletRequest, headers?: Record<string, string>): Promise<Outcome> {
      const key = { 'idempotency-key': req.transactionId };
      if (headers) return send('POST', `/${req.op}`, { ...headers, ...key }, req.text);
      return authorised('POST', `/${req.op}`, key, req.text);
    },
    async get(path: string): Promise<Outcome> {
      return authorised('GET', path, {});
    },
    async close(): Promise<void> {
      await agent.destroy(); // every call has its answer by now: nothing to wait for
    },
  };
}

export type CheckClient = ReturnType<typeof createCheckClient>;

/** One line saying what came back: status and the start of the body, or the error. */
export function describe(o: Outcome): string {
  if (o.error) return o.error;
  const body = o.text.length > 160 ? `${o.text.slice(0, 160)}…` : o.text;
  return `HTTP ${o.status} ${body || '(empty body)'}`;
}
