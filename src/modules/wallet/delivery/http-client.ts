// The HTTP side of wallet calls: one keep-alive undici Pool per wallet origin, the client-
// credentials token cache (spec 4.3, 5.3), API-key header, optional HMAC request signing, the
// 10-second bound on every call (spec 8) and the 401 → renew once → resend rule.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { connectionSlots, type ConnectionSlots } from './connection-slots.ts';
import { AnswerTooLarge, boundedText, MAX_RESPONSE_BYTES } from '../../../net/bounded-body.ts';
import { PRIVATE_ADDRESS, publicOnly, publicOnlyConnector } from '../../../net/private-network.ts';
import { classifyResponse, type Verdict } from '../../../wallet-protocol/responses.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signature } from '../../../wallet-protocol/signature.ts';

export type WalletAuth =
  | { kind: 'client_credentials'; clientId: string; clientSecret: string }
  | { kind: 'api_key'; apiKey: string; header: string };

/** A tenant's wallet with its secrets opened; `version` changes whenever the configuration does. */
export interface WalletEndpoint {
  tenantId: string;
  url: string;
  auth: WalletAuth;
  signingSecret?: string;
  amountUnit: 'dollars' | 'cents';
  concurrency: number;
  /** The platform wrote the configuration: its URL may lead to private addresses. */
  privateNetwork: boolean;
  version: string;
}

/** One HTTP exchange, as recorded in wallet_call_attempts. */
export interface Attempt {
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  responseBody: string | null;
  error: string | null;
  verdict: Verdict;
  code?: string;
  message?: string;
  /**
   * True when the request certainly never reached the wallet: no token, abandoned before sending,
   * still waiting for a free connection of the pool at its bound (never handed to undici), or no
   * connection (refused, unknown host). Such an attempt cannot have taken effect.
   */
  notSent?: true;
}

/** Connection errors before any byte of the request left: the wallet cannot have seen it. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', PRIVATE_ADDRESS]);

const RECORDED_BODY_BYTES = 4096;

export { MAX_RESPONSE_BYTES };

interface CachedToken {
  version: string;
  token?: string;
  expiresAt: number;
  pending?: Promise<string>;
}

export interface WalletHttpOptions {
  timeoutMs: number;
  clock?: () => Date;
  /** WAGERLINE_PRIVATE_NETWORK=any: every wallet may be at any address. */
  anyAddress?: boolean;
  /** Connections of each wallet origin's pool (1024); tests use a few to fill it. */
  connections?: number;
}

export function createWalletHttp({ timeoutMs, clock = () => new Date(), anyAddress = false, connections = 1024 }: WalletHttpOptions) {
  const pools = new Map<string, { pool: Pool; slots: ConnectionSlots }>();
  const tokens = new Map<string, CachedToken>();

  /**
   * One pool per origin and reach: a wallet a tenant's admin token configured connects to public
   * addresses only, checked as each connection opens (docs/admin-api.md, "Private addresses").
   * Its connections are handed out by `slots`, so that no request waits in undici's own queue.
   */
  function poolFor(origin: string, endpoint: WalletEndpoint): { pool: Pool; slots: ConnectionSlots } {
    const mustBePublic = publicOnly(endpoint.privateNetwork, anyAddress);
    const key = `${mustBePublic ? 'public' : 'any'} ${origin}`;
    let entry = pools.get(key);
    if (!entry) {
      const options = { connections, keepAliveTimeout: 30_000, connectTimeout: timeoutMs };
      const pool = new Pool(origin, mustBePublic ? { ...options, connect: publicOnlyConnector({ timeout: timeoutMs }) } : options);
      entry = { pool, slots: connectionSlots(connections) };
      pools.set(key, entry);
    }
    return entry;
  }

  /**
   * POST url with body, bounded by timeoutMs from the moment it is asked for: the wait for a free
   * connection, connecting, and the answer to its last byte. `stop` (optional) aborts sooner: the
   * worker uses it when its lease on the call is lost, so no call is ever in flight from two
   * senders at once. A call still waiting for a connection when either comes is never sent, and
   * its error says so (`not sent: …`).
   */
  async function post(endpoint: WalletEndpoint, url: URL, body: string, headers: Record<string, string>, stop?: AbortSignal) {
    if (stop?.aborted) throw new Error(`not sent: ${String(stop.reason)}`);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const onStop = () => controller.abort();
    stop?.addEventListener('abort', onStop, { once: true });
    try {
      const { pool, slots } = poolFor(url.origin, endpoint);
      const release = await slots.take(controller.signal);
      if (!release || controller.signal.aborted) {
        release?.();
        throw new Error(`not sent: ${stop?.aborted ? String(stop.reason) : `timeout: no connection to the wallet free within ${timeoutMs} ms`}`);
      }
      const request = { path: url.pathname + url.search, body, signal: controller.signal, headers: {
        'content-type': 'application/json', accept: 'application/json', 'user-agent': 'wagerline', ...headers } };
      const exchange = send(pool, request);
      void exchange.then(release, release); // the connection is free once undici is done with it
      try {
        // undici answers an abort at once only for a request already on an open connection.
        return await Promise.race([exchange, aborted(controller.signal)]);
      } catch (error) {
        if (error instanceof AnswerTooLarge) throw error;
        if (stop?.aborted) throw new Error(`abandoned: ${String(stop.reason)}`);
        if (controller.signal.aborted) throw new Error(`timeout: no complete response within ${timeoutMs} ms`);
        throw error;
      }
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    }
  }

  async function send(pool: Pool, r: { path: string; body: string; signal: AbortSignal; headers: Record<string, string> }) {
    const response = await pool.request({ ...r, method: 'POST', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = await boundedText(response.body, response.headers['content-length'], () => response.body.destroy());
    return { status: response.statusCode, text };
  }

  function endpointUrl(endpoint: WalletEndpoint, path: string): URL {
    const base = new URL(endpoint.url);
    base.pathname = `${base.pathname.replace(/\/+$/, '')}/${path}`;
    return base;
  }

  async function fetchToken(endpoint: WalletEndpoint & { auth: { kind: 'client_credentials' } }): Promise<{ token: string; ttl: number }> {
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: endpoint.auth.clientId, client_secret: endpoint.auth.clientSecret });
    // Shared by concurrent callers, so not tied to any one caller's stop signal.
    const { status, text } = await post(endpoint, endpointUrl(endpoint, 'auth/token'), body, {});
    let parsed: { access_token?: unknown; expires_in?: unknown } | undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (status < 200 || status >= 300 || typeof parsed?.access_token !== 'string') {
      throw Object.assign(new Error(`token request failed: HTTP ${status}: ${text.slice(0, 200)}`), { httpStatus: status });
    }
    const ttl = typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 300;
    return { token: parsed.access_token, ttl };
  }

  /** The cached token of a tenant; concurrent callers share one in-flight token request. */
  function tokenFor(endpoint: WalletEndpoint & { auth: { kind: 'client_credentials' } }): Promise<string> {
    let entry = tokens.get(endpoint.tenantId);
    if (!entry || entry.version !== endpoint.version) {
      entry = { version: endpoint.version, expiresAt: 0 };
      tokens.set(endpoint.tenantId, entry);
    }
    if (entry.token && clock().getTime() < entry.expiresAt) return Promise.resolve(entry.token);
    if (!entry.pending) {
      const current = entry;
      entry.pending = fetchToken(endpoint)
        .then(({ token, ttl }) => {
          // Renew shortly before expiry: 10% of the lifetime, at most a minute early.
          current.token = token;
          current.expiresAt = clock().getTime() + ttl * 1000 - Math.min(60_000, ttl * 100);
          return token;
        })
        .finally(() => {
          current.pending = undefined;
        });
    }
    return entry.pending!;
  }

  /** Forgets a token the wallet refused, unless another caller already replaced it. */
  function dropToken(tenantId: string, refused: string): void {
    const entry = tokens.get(tenantId);
    if (entry?.token === refused) {
      entry.token = undefined;
      entry.expiresAt = 0;
    }
  }

  async function authHeaders(endpoint: WalletEndpoint): Promise<{ headers: Record<string, string>; token?: string }> {
    if (endpoint.auth.kind === 'api_key') return { headers: { [endpoint.auth.header]: endpoint.auth.apiKey } };
    const token = await tokenFor(endpoint as WalletEndpoint & { auth: { kind: 'client_credentials' } });
    return { headers: { authorization: `Bearer ${token}` }, token };
  }

  async function attempt(endpoint: WalletEndpoint, op: string, body: string, transactionId: string, stop?: AbortSignal): Promise<Attempt & { token?: string }> {
    const startedAt = clock();
    const t0 = performance.now();
    const took = () => Math.round(performance.now() - t0);
    let auth: { headers: Record<string, string>; token?: string };
    try {
      auth = await authHeaders(endpoint);
    } catch (error) {
      return { startedAt, durationMs: took(), httpStatus: null, responseBody: null, error: described(error), verdict: 'retry', notSent: true };
    }
    const headers: Record<string, string> = { ...auth.headers, 'idempotency-key': transactionId };
    if (endpoint.signingSecret) {
      const timestamp = String(Math.floor(clock().getTime() / 1000));
      headers[TIMESTAMP_HEADER] = timestamp;
      headers[SIGNATURE_HEADER] = signature(endpoint.signingSecret, timestamp, body);
    }
    try {
      const { status, text } = await post(endpoint, endpointUrl(endpoint, op), body, headers, stop);
      const classified = classifyResponse(status, text, endpoint.auth.kind);
      return { startedAt, durationMs: took(), httpStatus: status, responseBody: text.slice(0, RECORDED_BODY_BYTES), error: null, ...classified, token: auth.token };
    } catch (error) {
      const e = error as Error & { code?: string };
      const notSent = (e.code !== undefined && NOT_SENT_CODES.has(e.code)) || e.message.startsWith('not sent:');
      return { startedAt, durationMs: took(), httpStatus: null, responseBody: null, error: described(error), verdict: 'retry', ...(notSent && { notSent: true as const }) };
    }
  }

  return {
    /**
     * Sends one call; returns every HTTP exchange it took: one, or two when a 401 made us renew
     * the token and resend at once (spec 4.3). The last attempt's verdict is the call's. Each
     * exchange is bounded by the timeout; `stop` abandons the call sooner (see post()).
     */
    async send(endpoint: WalletEndpoint, op: string, body: string, transactionId: string, stop?: AbortSignal): Promise<Attempt[]> {
      const first = await attempt(endpoint, op, body, transactionId, stop);
      if (first.verdict !== 'unauthorized' || endpoint.auth.kind !== 'client_credentials' || stop?.aborted) return [strip(first)];
      if (first.token) dropToken(endpoint.tenantId, first.token);
      const second = await attempt(endpoint, op, body, transactionId, stop);
      return [strip(first), strip(second)];
    },
    /** Forgets cached tokens (tests, and a configuration change). */
    forgetTokens(): void {
      tokens.clear();
    },
    async close(): Promise<void> {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map(({ pool }) => pool.close().catch(() => undefined)));
    },
  };
}

/** Rejects when `signal` aborts (with its reason); never settles otherwise. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

/** An error as an attempt records it: its code (ECONNREFUSED, EPRIVATEADDRESS…) first when it has one. */
function described(error: unknown): string {
  const e = error as Error & { code?: string };
  return e.code ? `${e.code}: ${e.message}` : e.message;
}

/** PostgreSQL text cannot hold U+0000; a wallet's answer may (raw, or escaped in its JSON). */
function storable<T extends string | null | undefined>(text: T): T {
  return (text?.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text) as T;
}

/** What leaves the client: no token, and text that can be recorded whatever the wallet sent. */
function strip(a: Attempt & { token?: string }): Attempt {
  const { token: _token, ...rest } = a;
  const out: Attempt = { ...rest, responseBody: storable(rest.responseBody), error: storable(rest.error) };
  if (rest.code !== undefined) out.code = storable(rest.code);
  if (rest.message !== undefined) out.message = storable(rest.message);
  return out;
}

export type WalletHttp = ReturnType<typeof createWalletHttp>;
