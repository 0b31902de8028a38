// Reading request bodies and writing answers on node:http, with the sandbox's error-shape breaks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from './codes.ts';

export const BODY_LIMIT = 1 << 20;

/** The raw body as text, or undefined when it is over the limit. */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON first; a form-urlencoded body (some token clients send one) is accepted too. */
export function parseBody(raw: string, contentType: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (contentType?.includes('application/x-www-form-urlencoded')) {
    return { ok: true, value: Object.fromEntries(new URLSearchParams(raw)) };
  }
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}

export type ErrorStyle = 'spec' | 'error-shape' | 'error-text';

/** Writes an answer; errors keep the spec 2.6 shape unless an error-shape break mode is on. */
export function writeAnswer(res: ServerResponse, answer: Answer, style: ErrorStyle): void {
  const body = answer.body as { message?: string; code?: string } | undefined;
  if (answer.status >= 400 && style !== 'spec' && body?.code) {
    if (style === 'error-text') {
      res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(body.message ?? 'error');
      return;
    }
    writeJson(res, answer.status, { error: body.message });
    return;
  }
  if (typeof answer.body === 'string') {
    res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.body);
    return;
  }
  writeJson(res, answer.status, answer.body);
}

export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** A sleep that ends early (rejecting) when the sandbox closes. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('closed'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('closed'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
