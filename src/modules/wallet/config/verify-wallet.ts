// What `tenant set-wallet` checks before it saves a configuration (docs/wallet-operations.md,
// "Checked before it is saved"): that a wallet answers at the URL and takes the credentials given.
// - client credentials: POST <url>/auth/token must issue an access_token (spec 2.3, 5.3);
// - API key: POST <url>/refundBet with an empty body `{}`, key (and signature) attached. It cannot
//   move money (no bet, no transactionId, no amount); a wallet that takes the key refuses the body
//   with a 4xx in the error shape of spec 2.6; one that refuses the key answers 401 or 403.
// Each exchange is bounded by WAGERLINE_WALLET_TIMEOUT_MS. A refusal says why, in one line.
import { request } from 'undici';
import { AppError } from '../../../errors.ts';
import { AnswerTooLarge, boundedText } from '../../../net/bounded-body.ts';
import { PRIVATE_ADDRESS, publicOnlyDispatcher } from '../../../net/private-network.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signature } from '../../../wallet-protocol/signature.ts';
import type { WalletAuth } from '../delivery/http-client.ts';

export interface WalletToVerify {
  url: string;
  auth: WalletAuth;
  signingSecret?: string;
  /** Connect to public addresses only (the platform did not allow a private one). */
  publicOnly?: boolean;
}

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown> | undefined;
}

const NO_CONNECTION: Record<string, string> = {
  ECONNREFUSED: 'connection refused', ENOTFOUND: 'unknown host', EAI_AGAIN: 'the host name could not be resolved',
  EHOSTUNREACH: 'host unreachable', [PRIVATE_ADDRESS]: 'the host is not at a public address', ENETUNREACH: 'network unreachable', ECONNRESET: 'connection reset',
};

const refuse = (reason: string) =>
  new AppError('bad_request', `wallet not saved: ${reason} (--no-verify, or "verify": false over HTTP, saves it without this check)`);

/**
 * What came back, for a message: the status and, from a JSON body, only the fields a wallet's
 * error carries (spec 2.6 `code`, `message`; OAuth `error`, `error_description`). Never the raw
 * body: the URL is the caller's, and the answer of a service that is not a wallet (an internal
 * address) must not be read back through this message.
 */
function shown(a: Answer): string {
  const fields = ['code', 'message', 'error', 'error_description']
    .filter((k) => typeof a.json?.[k] === 'string')
    .map((k) => `${k}: ${(a.json![k] as string).replace(/\s+/g, ' ').trim().slice(0, 80)}`);
  const what = fields.length ? fields.join(', ') : a.text.trim() ? `a body that is not a wallet's error (${a.text.length} bytes, not shown)` : 'an empty body';
  return `HTTP ${a.status} with ${what}`;
}

// undici's request, as the delivery's Pool sends wallet calls, not fetch: fetch refuses the WHATWG
// "bad ports" (6000, 6665-6669, 10080, ...), so a wallet that delivery reaches there could not be
// checked. request follows no redirect, as a wallet call does not.
async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, publicOnly?: boolean): Promise<Answer> {
  // One signal bounds the whole exchange: connecting, the answer's headers and its body.
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string;
  try {
    const response = await request(url, {
      method: 'POST', body, signal,
      ...(publicOnly && { dispatcher: publicOnlyDispatcher() }),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'wagerline', ...headers },
    });
    status = response.statusCode;
    // A body cut short reads as empty (what came is judged as is), unless the time ran out.
    text = await boundedText(response.body, response.headers['content-length'], () => response.body.destroy()).catch((error: unknown) => {
      if (signal.aborted || error instanceof AnswerTooLarge) throw error;
      return '';
    });
  } catch (error) {
    if (signal.aborted) throw refuse(`the wallet is unreachable: no answer from POST ${url} within ${timeoutMs} ms`);
    const e = error as Error & { code?: string };
    const why = e.code ? `${NO_CONNECTION[e.code] ?? e.message} (${e.code})` : e.message;
    throw refuse(`the wallet is unreachable: POST ${url}: ${why}`);
  }
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    json = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : undefined;
  } catch {
    json = undefined;
  }
  return { status, text, json };
}

function endpoint(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

async function verifyClientCredentials(w: WalletToVerify & { auth: { kind: 'client_credentials' } }, timeoutMs: number): Promise<string> {
  const url = endpoint(w.url, 'auth/token');
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: w.auth.clientId, client_secret: w.auth.clientSecret });
  const a = await post(url, body, {}, timeoutMs, w.publicOnly);
  if (a.status >= 200 && a.status < 300 && typeof a.json?.access_token === 'string') return `POST ${url} issued a token`;
  if (a.status === 400 || a.status === 401 || a.status === 403) {
    throw refuse(`the wallet refused the client credentials: POST ${url} answered ${shown(a)}`);
  }
  throw refuse(`no wallet token endpoint at ${url}: expected a 2xx with an access_token (docs/wallet.md), got ${shown(a)}`);
}

async function verifyApiKey(w: WalletToVerify & { auth: { kind: 'api_key' } }, timeoutMs: number): Promise<string> {
  const url = endpoint(w.url, 'refundBet');
  const body = '{}';
  const headers: Record<string, string> = { [w.auth.header]: w.auth.apiKey };
  if (w.signingSecret) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers[TIMESTAMP_HEADER] = timestamp;
    headers[SIGNATURE_HEADER] = signature(w.signingSecret, timestamp, body);
  }
  const a = await post(url, body, headers, timeoutMs, w.publicOnly);
  if (a.status === 401 || a.status === 403) throw refuse(`the wallet refused the API key (header ${w.auth.header}, ${w.signingSecret ? 'signed' : 'unsigned'}): POST ${url} answered ${shown(a)}`);
  const errorShape = typeof a.json?.message === 'string' && typeof a.json?.code === 'string' && a.json?.statusCode === a.status;
  if (a.status >= 400 && a.status < 500 && errorShape) return `POST ${url} took the key and refused an empty body (${a.status} ${String(a.json!.code)})`;
  throw refuse(`no wallet at ${w.url}: an empty refundBet should be refused with a 4xx {message, code, statusCode} (docs/wallet.md), got ${shown(a)}`);
}

/** Checks the wallet; returns what was verified, or throws a bad_request saying why not. */
export function verifyWallet(wallet: WalletToVerify, timeoutMs: number): Promise<string> {
  return wallet.auth.kind === 'client_credentials'
    ? verifyClientCredentials(wallet as WalletToVerify & { auth: { kind: 'client_credentials' } }, timeoutMs)
    : verifyApiKey(wallet as WalletToVerify & { auth: { kind: 'api_key' } }, timeoutMs);
}
