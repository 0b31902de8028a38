// The wallet conformance checker: a scripted sequence of calls against any wallet implementing
// spec 4.3, one result per check (docs/wallet-check.md explains each).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AmountUnit } from './bodies.ts';
import { FLOW_CHECKS, type Check } from './checks-flows.ts';
import { PROTOCOL_CHECKS } from './checks-protocol.ts';
import { createCheckClient, WalletUnreachable, type CheckAuth } from './client.ts';
import { CheckFailure, readBalances, type Ctx } from './expect.ts';

export { WalletUnreachable, type CheckAuth } from './client.ts';

export interface WalletCheckOptions {
  url: string;
  auth: CheckAuth;
  /** The user all calls are made for; default a fresh UUID (the sandbox creates users on first sight). */
  userId?: string;
  amountUnit?: AmountUnit;
  /** The bound on each call, connect to last byte (spec 8: 10 s). */
  timeoutMs?: number;
  /** Sign every transaction call with this secret, for a wallet that requires signatures. */
  signingSecret?: string;
}

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

export interface WalletCheckReport {
  url: string;
  userId: string;
  amountUnit: AmountUnit;
  /** How effects were judged: by GET /balances/{userId}, or by the answers only. */
  effects: 'balances' | 'answers';
  startedAt: string;
  passed: number;
  failed: number;
  checks: CheckResult[];
}

export const CHECK_NAMES = [...FLOW_CHECKS, ...PROTOCOL_CHECKS].map((c) => c.name).concat('response times within the bound');

async function runOne(check: Check, ctx: Ctx): Promise<CheckResult> {
  const started = performance.now();
  try {
    const detail = await check.run(ctx);
    return { name: check.name, ok: true, detail, ms: Math.round(performance.now() - started) };
  } catch (error) {
    if (error instanceof WalletUnreachable) throw error;
    const detail = error instanceof CheckFailure ? error.message : `could not run: ${(error as Error).message}`;
    return { name: check.name, ok: false, detail, ms: Math.round(performance.now() - started) };
  }
}

/** The protocol's calls (POST) against the bound; the checker's own GET /balances reads are not wagerline's calls. */
function responseTimes(ctx: Ctx): CheckResult {
  const calls = ctx.client.calls.filter((c) => c.method === 'POST');
  const late = calls.filter((c) => c.timedOut || c.ms > ctx.timeoutMs);
  const max = calls.reduce((m, c) => Math.max(m, c.ms), 0);
  const sorted = calls.map((c) => c.ms).sort((a, b) => a - b);
  const p95 = sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
  const summary = `${calls.length} calls, p95 ${p95} ms, max ${max} ms (bound ${ctx.timeoutMs} ms)`;
  if (late.length) {
    const ops = [...new Set(late.map((c) => c.op))].join(', ');
    return { name: 'response times within the bound', ok: false, ms: 0, detail: `${late.length} call(s) got no answer within the bound (${ops}); ${summary}` };
  }
  return { name: 'response times within the bound', ok: true, ms: 0, detail: summary };
}

export async function runWalletCheck(options: WalletCheckOptions): Promise<WalletCheckReport> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = createCheckClient(options.url, options.auth, timeoutMs, options.signingSecret);
  const userId = options.userId ?? randomUUID();
  const startedAt = new Date().toISOString();
  const checks: CheckResult[] = [];
  const ctx: Ctx = { client, unit: options.amountUnit ?? 'dollars', userId, inspect: false, timeoutMs };
  try {
    try {
      ctx.inspect = (await readBalances({ client, userId })) !== undefined;
    } catch (error) {
      if (error instanceof WalletUnreachable) throw error;
      ctx.inspect = false; // no token yet, or no such endpoint: effects are judged from the answers
    }
    for (const check of [...FLOW_CHECKS, ...PROTOCOL_CHECKS]) checks.push(await runOne(check, ctx));
  } finally {
    await client.close(); // the connections kept alive between calls
  }
  checks.push(responseTimes(ctx));
  const passed = checks.filter((c) => c.ok).length;
  return {
    url: options.url, userId, amountUnit: ctx.unit, effects: ctx.inspect ? 'balances' : 'answers', startedAt,
    passed, failed: checks.length - passed, checks,
  };
}
