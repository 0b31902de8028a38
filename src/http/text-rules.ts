// One rule for every string a client sends (query, path, body; values and object keys): it must
// not hold U+0000. PostgreSQL cannot store or compare that byte, so such a value reaching SQL is a
// 500; no stored value can contain it either, so refusing it loses nothing. Checked once, before a
// route's validation, for every route; the token endpoint applies its own (RFC 6749) answer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, describeProblems } from '../errors.ts';

const MAX_REPORTED = 10;

/**
 * Text PostgreSQL cannot keep as sent: U+0000 (refused anywhere), or half of a surrogate pair
 * (refused in JSON, turned into U+FFFD in text, so two different values would become one). With
 * the u flag a whole pair is one code point, not Cs.
 */
export const unstorable = (text: string): boolean => /[\u0000\p{Cs}]/u.test(text);

/**
 * A name people read (a venue, a runner) in reports, answers and the back-office: no control
 * character (C0, DEL, C1), line or paragraph separator, or bidirectional override or isolate
 * (they reorder how the text around them is shown), storable, with something visible in it.
 */
export const SHOWABLE_RULE = 'at least one visible character, and no control characters, line separators, text-direction overrides or unpaired surrogates';
export const showable = (text: string): boolean =>
  !/[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069\p{Cs}]/u.test(text) && /[\p{L}\p{N}\p{P}\p{S}]/u.test(text);

/**
 * Characters as a person counts them, and as the API's schemas count `maxLength`: code points, so
 * an emoji (two UTF-16 units) is one.
 */
export const characters = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/**
 * Text an operator gives for the record (a bet's reason, a wallet call's note): trimmed, at most
 * `max` characters, storable as sent. The CLI reaches the services without a route's schema, so
 * the services apply this, and both paths refuse the same text. Null when empty and not required.
 */
export function operatorText(field: string, value: unknown, required: boolean, max = 500): string | null {
  const text = typeof value === 'string' ? value.trim() : value === undefined || value === null ? '' : undefined;
  if (text === undefined || characters(text) > max || (required && text.length === 0) || unstorable(text)) {
    const message = `must be a text of ${required ? '1' : '0'} to ${max} characters saying why (no U+0000, no unpaired surrogate)`;
    throw new AppError('validation_failed', `${field} ${message}`, { extensions: { errors: [{ field, message }] } });
  }
  return text || null;
}

/** Paths (like `body/bets/0/user_id`) of strings holding U+0000; iterative, so any depth is safe. */
export function nulPaths(value: unknown, root: string): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[value, root]];
  while (stack.length && found.length < MAX_REPORTED) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) found.push(path);
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, child] of Object.entries(v)) {
        // Escaped in the path: the path goes into the answer, the byte must not.
        if (key.includes('\u0000')) found.push(`${path}/${key.replaceAll('\u0000', '\\u0000')}`);
        else stack.push([child, `${path}/${key}`]);
      }
    }
  }
  return found.sort();
}

/**
 * Whether any string or key in `value` holds U+0000: the check every request pays, so it builds no
 * paths and allocates nothing per value (a 1,000-bet upload has 27,000 of them). Iterative.
 */
export function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (typeof v === 'object' && v !== null) {
      for (const key in v) {
        if (key.includes('\u0000')) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** Route config: the route answers U+0000 in its own terms (the token endpoint: invalid_client). */
export interface TextRulesConfig {
  ownTextRules?: boolean;
}

export function registerTextRules(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    if ((request.routeOptions.config as TextRulesConfig | undefined)?.ownTextRules) return;
    if (!holdsNul(request.params) && !holdsNul(request.query) && !holdsNul(request.body)) return;
    const paths = [
      ...nulPaths(request.params, 'params'),
      ...nulPaths(request.query, 'querystring'),
      ...nulPaths(request.body, 'body'),
    ].slice(0, MAX_REPORTED);
    if (!paths.length) return;
    const errors = paths.map((field) => ({ field, message: 'must not contain U+0000 (a NUL character)' }));
    throw new AppError('validation_failed', describeProblems(errors), { extensions: { errors } });
  });
}
