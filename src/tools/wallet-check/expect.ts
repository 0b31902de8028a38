// What the checks expect of a wallet's answers (spec 2.6) and of its balances.
import { CENT_PLACES, centsToDollars, parseDecimal } from '../../racing/money.ts';
import { describe, type CheckClient, type Outcome } from './client.ts';
import type { AmountUnit } from './bodies.ts';

export class CheckFailure extends Error {}

export function fail(message: string): never {
  throw new CheckFailure(message);
}

export interface Ctx {
  client: CheckClient;
  unit: AmountUnit;
  userId: string;
  /** Whether the wallet exposes GET /balances/{userId} (the sandbox does): effects are then verified by balance. */
  inspect: boolean;
  timeoutMs: number;
}

/** spec 2.6: a success is a 2xx whose JSON body has success: true. */
export function isSuccess(o: Outcome): boolean {
  return o.status !== undefined && o.status >= 200 && o.status < 300 && (o.json as { success?: unknown } | undefined)?.success === true;
}

export function expectSuccess(o: Outcome, what: string): Outcome {
  if (!isSuccess(o)) fail(`${what}: expected a 2xx with {"success": true}, got ${describe(o)}`);
  return o;
}

/** spec 2.6 error body: message (string), code (string), statusCode (integer, the HTTP status). */
export function errorShapeProblem(o: Outcome): string | undefined {
  if (o.status === undefined) return describe(o);
  const body = o.json as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `the error body is not a JSON object: ${describe(o)}`;
  const missing = [
    typeof body.message === 'string' ? '' : 'message (string)',
    typeof body.code === 'string' && body.code ? '' : 'code (string)',
    Number.isInteger(body.statusCode) ? '' : 'statusCode (integer)',
  ].filter(Boolean);
  if (missing.length) return `the error body lacks ${missing.join(', ')}: ${describe(o)}`;
  if (body.statusCode !== o.status) return `statusCode ${String(body.statusCode)} differs from the HTTP status ${o.status}`;
  return undefined;
}

export function expectRefusal(o: Outcome, what: string): string {
  if (o.status === undefined) fail(`${what}: ${describe(o)}`);
  if (isSuccess(o) || o.status < 400 || o.status >= 500) fail(`${what}: expected a 4xx error, got ${describe(o)}`);
  const problem = errorShapeProblem(o);
  if (problem) fail(`${what}: ${problem}`);
  return `${o.status} ${(o.json as { code: string }).code}`;
}

export interface Money {
  cash: number;
  bonus: number;
  /** Funds held by reservations, when the wallet reports them (the sandbox does); not required. */
  reserved?: number;
}

/** A balance in decimal dollars (a JSON number or string; negative in break modes) → cents. */
function toCents(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  // Zeros past the cents are the same amount (a NUMERIC(18,4) column answers 10.5000).
  const cents = parseDecimal(text.replace(/(\.\d\d)0+$/, '$1'), CENT_PLACES);
  return cents === undefined ? undefined : Number(cents);
}

/** GET /balances/{userId} → cash and bonus in cents (decimal dollars on the wire), or undefined. */
export async function readBalances(ctx: Pick<Ctx, 'client' | 'userId'>): Promise<Money | undefined> {
  const o = await ctx.client.get(`/balances/${encodeURIComponent(ctx.userId)}`);
  // The checker stopped sending (too many calls without an answer): say so, not "stopped answering".
  if (o.error?.startsWith('not sent')) fail(o.error);
  const body = o.json as { cash?: unknown; bonus?: unknown; reserved?: unknown } | undefined;
  if (o.status !== 200 || !body) return undefined;
  const cash = toCents(body.cash);
  const bonus = toCents(body.bonus);
  const reserved = toCents(body.reserved);
  if (cash === undefined || bonus === undefined) {
    if (body.cash === undefined || body.bonus === undefined) return undefined; // not the sandbox's endpoint
    // Answered, but not in cents: what a wallet keeping money in floating point reports (0.1 + 0.2).
    fail(`GET /balances answered cash ${String(body.cash)}, bonus ${String(body.bonus)}: not whole cents (money kept in floating point?)`);
  }
  return reserved === undefined ? { cash, bonus } : { cash, bonus, reserved };
}

/** A signed change of balance for the report: +12.50, -3.00. */
export function dollars(cents: number): string {
  return `${cents < 0 ? '-' : '+'}${centsToDollars(Math.abs(cents))}`;
}

/** A move 100 times too small or too large: the wallet reads amounts in the other unit. */
function unitHint(got: Money, want: Money, unit: AmountUnit): string {
  const off = (k: 'cash' | 'bonus') => want[k] !== 0 && (got[k] * 100 === want[k] || got[k] === want[k] * 100);
  if (!off('cash') && !off('bonus')) return '';
  return ` — 100 times off: the wallet reads amounts in ${unit === 'dollars' ? 'cents' : 'dollars'}? Run with the --amount-unit your tenant is configured with`;
}

/**
 * A balance tracker: `expect(delta)` checks the change since `start` (only when the wallet can be
 * inspected). `held` also checks the change of the funds held, when the wallet reports them: a
 * wallet can give the money back and still keep the reservation open on its books.
 */
export async function tracker(ctx: Ctx) {
  const start = ctx.inspect ? await readBalances(ctx) : undefined;
  if (ctx.inspect && !start) fail('GET /balances stopped answering');
  return async (what: string, delta: Partial<Money>, held?: { reserved: number }): Promise<void> => {
    if (!start) return;
    const now = await readBalances(ctx);
    if (!now) fail(`${what}: GET /balances did not answer`);
    const want = { cash: delta.cash ?? 0, bonus: delta.bonus ?? 0 };
    const got = { cash: now.cash - start.cash, bonus: now.bonus - start.bonus };
    if (got.cash !== want.cash || got.bonus !== want.bonus) {
      fail(`${what}: balances moved cash ${dollars(got.cash)}, bonus ${dollars(got.bonus)}; expected cash ${dollars(want.cash)}, bonus ${dollars(want.bonus)}${unitHint(got, want, ctx.unit)}`);
    }
    if (held && start.reserved !== undefined && now.reserved !== undefined && now.reserved - start.reserved !== held.reserved) {
      fail(`${what}: the funds held (reserved) moved ${dollars(now.reserved - start.reserved)}; expected ${dollars(held.reserved)}`);
    }
  };
}
