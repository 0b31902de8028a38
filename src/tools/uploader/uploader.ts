// The upload client for operators: sends a file's batches to /public/uploadRace (V1) or
// /public/uploadRaceV2 (V2), a few at a time, and sums up what the service answered. Used by
// `wagerline upload` (docs/upload-client.md); it talks to the service over HTTP only.
import { isObject } from '../../racing/values.ts';
import { requestBody, type Batch } from './batches.ts';
import { DEFAULT_POLICY, realHttp, retryable, sendWithRetry, type HttpDeps, type RetryPolicy } from './retry.ts';
import { createTokenClient, TokenRefusedError, tokenEndpoint } from './token-client.ts';

export interface UploadOptions {
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  version: 1 | 2;
  /** Batches in flight at once. */
  concurrency?: number;
  policy?: Partial<RetryPolicy>;
  http?: Partial<HttpDeps>;
  /** Called after each batch with the bets done so far. */
  onProgress?: (doneBets: number) => void;
}

export interface BatchRejection {
  meeting_id: number | string;
  race_number: number;
  bets: number;
  status: number | null;
  code: string | null;
  detail: string;
  /** The service's per-bet errors, each with `at`: where that bet is in the file. */
  errors: Array<Record<string, unknown>>;
  /** The service lists at most 50 errors: how many more it left out, when it did. */
  errors_omitted?: number;
}

export interface UploadSummary {
  batches: number;
  bets: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Batches the service refused (4xx), or that still failed after every retry (status null, 5xx, 408 or 429). */
  rejected: BatchRejection[];
  warnings: Array<Record<string, unknown>>;
  /** Set when the run stopped early (the credentials, scope or tenant were refused); `not_sent` batches were never sent. */
  error?: string;
  not_sent?: number;
  retries: number;
  tokens: number;
}

interface ServiceAnswer {
  created?: number;
  updated?: number;
  unchanged?: number;
  warnings?: unknown;
  code?: string;
  detail?: string;
  errors?: unknown;
  errors_omitted?: unknown;
}

function meetingOut(batch: Batch): number | string {
  const n = Number(batch.meetingId);
  return Number.isSafeInteger(n) ? n : batch.meetingId;
}

function parse(text: string): ServiceAnswer {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/**
 * A list member of an answer, or none: a gateway's or proxy's body may hold anything under
 * these names, and a run that threw on it would end without its summary of what was sent.
 */
function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** An answer that would be the same for every batch: the run stops (stopsRun). */
class StopRun extends Error {}

/**
 * Why the answer stops the run, or undefined: a refusal of the client (a 401 after a fresh token,
 * a 403), or of its tenant (409 tenant_misconfigured: its time zone needs an administrator's fix
 * first), would fail every batch alike.
 */
function stopsRun(status: number, code: string | undefined, detail: string): string | undefined {
  if (status === 401 || status === 403) return `the service refused the client (${status} ${code ?? ''}): ${detail}`;
  if (status === 409 && code === 'tenant_misconfigured') return `the service refused the tenant (409 ${code}): ${detail}`;
  return undefined;
}

export async function uploadBatches(batches: Batch[], options: UploadOptions): Promise<UploadSummary> {
  const policy = { ...DEFAULT_POLICY, ...options.policy };
  const http = { ...realHttp(), ...options.http };
  const tokens = createTokenClient({
    url: tokenEndpoint(options.authUrl), clientId: options.clientId, clientSecret: options.clientSecret, policy, http,
  });
  const base = options.apiUrl.replace(/\/+$/, '');
  const url = `${base}${options.version === 1 ? '/public/uploadRace' : '/public/uploadRaceV2'}`;
  const summary: UploadSummary = {
    batches: batches.length, bets: batches.reduce((n, b) => n + b.bets.length, 0),
    created: 0, updated: 0, unchanged: 0, rejected: [], warnings: [], retries: 0, tokens: 0,
  };
  let done = 0;
  let stopped: string | undefined;
  let notSent = 0;

  async function sendBatch(batch: Batch): Promise<void> {
    const body = requestBody(batch);
    let outcome;
    for (let authTry = 1; ; authTry++) {
      let used = '';
      outcome = await sendWithRetry(async () => {
        used = await tokens.get();
        return { url, init: { method: 'POST', headers: { authorization: `Bearer ${used}`, 'content-type': 'application/json', accept: 'application/json' }, body } };
      }, policy, http);
      summary.retries += outcome.attempts - 1;
      // A 401 once: the token expired or was revoked early; get a new one and send again.
      if (outcome.ok && outcome.answer.status === 401 && authTry === 1) {
        tokens.invalidate(used);
        continue;
      }
      break;
    }
    const where = { meeting_id: meetingOut(batch), race_number: batch.raceNumber, bets: batch.bets.length };
    if (!outcome.ok) {
      summary.rejected.push({ ...where, status: null, code: null, detail: `gave up after ${outcome.attempts} attempts: ${outcome.error}`, errors: [] });
      return;
    }
    const { status, text } = outcome.answer;
    const answer = parse(text);
    // Only the service's answer counts as stored: a 200 without its counts (a proxy's page) does not.
    const stored = typeof answer.created === 'number' && typeof answer.updated === 'number' && typeof answer.unchanged === 'number';
    if (status === 200 && !stored) {
      summary.rejected.push({ ...where, status, code: null, detail: `a 200 that is not the service's answer (no created/updated/unchanged): ${text.slice(0, 120) || '(empty body)'}`, errors: [] });
      return;
    }
    if (status === 200) {
      summary.created += answer.created ?? 0;
      summary.updated += answer.updated ?? 0;
      summary.unchanged += answer.unchanged ?? 0;
      for (const w of listOf(answer.warnings).filter(isObject)) summary.warnings.push({ meeting_id: where.meeting_id, race_number: where.race_number, ...w });
      return;
    }
    const errors = listOf(answer.errors).filter(isObject).map((e) => (typeof e.index === 'number' && batch.at[e.index] ? { ...e, at: batch.at[e.index] } : e));
    const detail = answer.detail ?? (text.slice(0, 300) || `HTTP ${status}`);
    const omitted = typeof answer.errors_omitted === 'number' ? { errors_omitted: answer.errors_omitted } : {};
    summary.rejected.push({ ...where, status, code: answer.code ?? null, detail: retryable(status) ? `gave up after ${outcome.attempts} attempts: ${detail}` : detail, errors, ...omitted });
    const stop = stopsRun(status, answer.code, detail);
    if (stop) throw new StopRun(stop);
  }

  let next = 0;
  async function worker(): Promise<void> {
    while (next < batches.length && stopped === undefined) {
      const batch = batches[next++]!;
      try {
        await sendBatch(batch);
      } catch (error) {
        if (!(error instanceof StopRun || error instanceof TokenRefusedError)) throw error;
        stopped ??= error.message;
        if (error instanceof TokenRefusedError) notSent += 1; // this batch never went out
      }
      done += batch.bets.length;
      options.onProgress?.(done);
    }
  }
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 2, batches.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  summary.tokens = tokens.issued;
  if (stopped !== undefined) {
    summary.error = stopped;
    summary.not_sent = notSent + (batches.length - next);
  }
  return summary;
}
