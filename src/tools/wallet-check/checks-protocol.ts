// Checks of the protocol rules: idempotent replays by transactionId, a reused transactionId with
// another amount, tolerance of unknown fields (spec 2.4), 401 for a bad credential and the error
// shape of spec 2.6, concurrent duplicates.
import { confirmBody, creditBody, debitBody, newBet, refundBetBody, reserveBody, settleBetBody, withAmount, withUnknownFields, type Bet, type WalletRequest } from './bodies.ts';
import { describe, type Outcome } from './client.ts';
import type { Check } from './checks-flows.ts';
import { errorShapeProblem, expectRefusal, expectSuccess, fail, isSuccess, tracker, type Ctx } from './expect.ts';
import { place } from './setup.ts';
import { classifyResponse, RETRY_DELAYS_MS } from '../../wallet-protocol/responses.ts';

/**
 * Runs `setup`, then sends `last` twice: the replay must be a success and move nothing. `delta`
 * is the change of cash from before the setup to after `last`.
 */
function replay(op: string, build: (ctx: Ctx, bet: Bet) => { setup: WalletRequest[]; last: WalletRequest; delta: number; cleanup?: WalletRequest }): Check {
  return {
    name: `replay of ${op}`,
    async run(ctx) {
      const bet = newBet(ctx.userId);
      const { setup, last, delta, cleanup } = build(ctx, bet);
      const moved = await tracker(ctx);
      for (const step of setup) expectSuccess(await ctx.client.post(step), `${step.op} (setup)`);
      const first = expectSuccess(await ctx.client.post(last), op);
      await moved(`after ${op}`, { cash: delta });
      const again = await ctx.client.post(last);
      if (!isSuccess(again)) fail(`the replay of ${op} with the same transactionId must succeed again (a 2xx with {"success": true}), got ${describe(again)}`);
      await moved(`after the replay of ${op} (a replay must move nothing)`, { cash: delta });
      if (cleanup) expectSuccess(await ctx.client.post(cleanup), `${cleanup.op} (cleanup)`);
      // wagerline takes any 2xx with success: true as the success it was waiting for: a replay may
      // answer another 2xx, or say in a code that it was a duplicate (201, then 200 DUPLICATE).
      const same = again.text === first.text ? 'identical body' : `a success; the original answered HTTP ${first.status}, the replay HTTP ${again.status} ${again.text.slice(0, 80)}`;
      return `${same}; ${ctx.inspect ? 'no second effect on the balances' : 'effect not verifiable without GET /balances'}`;
    },
  };
}

// debit and credit are replayed on bets in the state wagerline sends them in: a reversal of
// winnings on a settled bet, a cash-out on a confirmed one.
const REPLAYS: Check[] = [
  replay('reserve', (c, bet) => ({
    setup: [], last: reserveBody(bet, 500, c.unit), delta: -500,
    cleanup: refundBetBody(bet, 500, c.unit), // leave no funds held on the test account
  })),
  replay('confirm', (c, bet) => ({
    // A partial confirm: a replay that takes effect again releases the unaccepted 2.00 a second time.
    setup: [reserveBody(bet, 500, c.unit)], last: confirmBody(bet, 300, c.unit), delta: -300,
  })),
  replay('refundBet', (c, bet) => ({ setup: [reserveBody(bet, 500, c.unit)], last: refundBetBody(bet, 500, c.unit), delta: 0 })),
  replay('settleBet', (c, bet) => ({
    setup: [reserveBody(bet, 500, c.unit), confirmBody(bet, 500, c.unit)], last: settleBetBody(bet, 700, c.unit), delta: 200,
  })),
  replay('debit', (c, bet) => ({
    setup: [reserveBody(bet, 100, c.unit), confirmBody(bet, 100, c.unit), settleBetBody(bet, 300, c.unit)],
    last: debitBody(bet, 100, c.unit, 'deductbetwin'), delta: 100,
  })),
  replay('credit', (c, bet) => ({
    setup: [reserveBody(bet, 100, c.unit), confirmBody(bet, 100, c.unit)], last: creditBody(bet, 200, c.unit, 'cashout'), delta: 100,
  })),
];

const mismatch: Check = {
  name: 'same transactionId with another amount',
  async run(ctx) {
    const bet = await place(ctx, newBet(ctx.userId), 100);
    const moved = await tracker(ctx);
    const body = creditBody(bet, 100, ctx.unit, 'cashout');
    expectSuccess(await ctx.client.post(body), 'credit');
    const refusal = expectRefusal(await ctx.client.post(withAmount(body, 200)), 'the same transactionId with another amount must be refused');
    await moved('after the refused reuse (only the first credit may count)', { cash: 100 });
    return `refused with ${refusal}`;
  },
};

/** `value` with unknown fields: the protocol's types have no room for them, the wire does. */
const plus = <T extends object>(value: T, fields: Record<string, unknown>): T => ({ ...value, ...fields });

const extraFields: Check = {
  name: 'unknown extra fields tolerated',
  async run(ctx) {
    const bet = newBet(ctx.userId);
    const released = newBet(ctx.userId);
    const extra = { walletCheckExtra: { nested: [1, 'two'], note: 'the operator must tolerate extra fields (docs/wallet.md)' } };
    const reserve = reserveBody(bet, 300, ctx.unit);
    const confirm = confirmBody(bet, 300, ctx.unit);
    const meta = confirm.call.extra.betMetadata!;
    const steps = [
      withUnknownFields(reserve, extra, { metadata: plus(reserve.call.extra.metadata!, { extraField: 'x' }) }),
      withUnknownFields(confirm, extra, { betMetadata: plus(meta, { extraField: 1, legs: meta.legs.map((l) => plus(l, { extraField: true })) }) }),
      withUnknownFields(settleBetBody(bet, 300, ctx.unit), extra),
      // An adjustment, which wagerline may send for a settled bet: a cash-out of a settled bet is
      // a call wagerline never sends, and a wallet may refuse it (a settled bet is not cashed out).
      withUnknownFields(creditBody(bet, 100, ctx.unit, 'adjustreversetransaction'), extra),
      withUnknownFields(debitBody(bet, 100, ctx.unit, 'deductbetwin'), extra),
      // refundBet on a bet of its own, reserved and released: nothing moves, no state is strained.
      reserveBody(released, 100, ctx.unit),
      withUnknownFields(refundBetBody(released, 100, ctx.unit), extra),
    ];
    for (const step of steps) expectSuccess(await ctx.client.post(step), step.text.includes('walletCheckExtra') ? `${step.op} with unknown fields` : `${step.op} (setup)`);
    return 'reserve, confirm (also inside betMetadata and legs), settleBet, credit, debit, refundBet accepted unknown fields';
  },
};

/**
 * A bearer token must be refused with 401: spec 7.2 shows 401 for an invalid token, and wagerline
 * renews its token only on a 401. An API key has no token to renew, and spec 5.3 leaves that
 * option's shape unshown: 401 or 403 both say the key was refused (tenant set-wallet reads them so).
 */
const invalidCredentials: Check = {
  name: 'invalid token → 401 in the error shape',
  async run(ctx) {
    const bet = await place(ctx, newBet(ctx.userId), 100);
    const moved = await tracker(ctx);
    const o = await ctx.client.post(creditBody(bet, 100, ctx.unit, 'cashout'), ctx.client.invalidAuthHeaders());
    const apiKey = ctx.client.authKind === 'api_key';
    if (apiKey && o.status !== 401 && o.status !== 403) fail(`a wrong API key must be refused with 401 or 403 (spec 5.3 and 7.2), got ${describe(o)}`);
    if (!apiKey && o.status !== 401) {
      fail(`a bearer token the wallet does not know must be refused with 401 (spec 7.2: 401 for an invalid token; wagerline renews its token only on a 401), got ${describe(o)}`);
    }
    const problem = errorShapeProblem(o);
    if (problem) fail(problem);
    await moved('after the refused call', {});
    // For an API key delivery reads a 403 as it reads a 401 (responses.ts): nothing to point out.
    return `${o.status} ${(o.json as { code: string }).code}`;
  },
};

const errorShape: Check = {
  name: 'error responses in the spec shape',
  async run(ctx) {
    const results = [];
    for (const op of ['confirm', 'refundBet'] as const) {
      const bet = newBet(ctx.userId);
      const body = op === 'confirm' ? confirmBody(bet, 100, ctx.unit) : refundBetBody(bet, 100, ctx.unit);
      results.push(`${op} of a never-reserved bet: ${expectRefusal(await ctx.client.post(body), `${op} of a bet never reserved`)}`);
    }
    return results.join('; ');
  },
};

/**
 * confirm is the accepted part of the reserved funds (spec 2.4): wagerline never confirms more than
 * it reserved, and a wallet that accepts more takes money the user never saw held for the bet.
 */
const confirmAboveReserve: Check = {
  name: 'confirm above the reserved amount refused',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    expectSuccess(await ctx.client.post(reserveBody(bet, 200, ctx.unit)), 'reserve');
    const refusal = expectRefusal(await ctx.client.post(confirmBody(bet, 300, ctx.unit)),
      'confirm of 3.00 on a reserve of 2.00 (more than the funds held) must be refused');
    await moved('after the refused confirm (the 2.00 reserved stays held, nothing more is taken)', { cash: -200 });
    expectSuccess(await ctx.client.post(refundBetBody(bet, 200, ctx.unit)), 'refundBet of the reservation (cleanup)');
    await moved('after refundBet of the reservation', {}, { reserved: 0 });
    return `refused with ${refusal}`;
  },
};

/** Shortened from wagerline's schedule (minutes): the run cannot wait that long, the rule is the same. */
const DUPLICATE_RETRY_DELAYS_MS = RETRY_DELAYS_MS.map((_, i) => 100 * 2 ** i);

/**
 * A copy answered what wagerline's caller retries (5xx, 408, 429, no answer, a body not the spec's:
 * responses.ts) is sent again as wagerline would, with the same transactionId and body, one after
 * another: a wallet may lock a transactionId in flight and ask a duplicate to come back. Only the
 * final outcome counts; the balances then show whether any copy moved money twice.
 */
async function retried(ctx: Ctx, req: WalletRequest, first: Outcome): Promise<{ outcome: Outcome; retries: number }> {
  let outcome = first;
  let retries = 0;
  const retryable = (o: Outcome) => (o.status === undefined ? !o.error?.startsWith('not sent') : classifyResponse(o.status, o.text).verdict === 'retry');
  while (retries < DUPLICATE_RETRY_DELAYS_MS.length && retryable(outcome)) {
    await new Promise((resolve) => setTimeout(resolve, DUPLICATE_RETRY_DELAYS_MS[retries]));
    retries += 1;
    outcome = await ctx.client.post(req);
  }
  return { outcome, retries };
}

const concurrent: Check = {
  name: 'concurrent duplicate calls',
  async run(ctx) {
    // The credit is for a confirmed bet, as wagerline's are; the reserve opens a bet of its own.
    const credited = await place(ctx, newBet(ctx.userId), 100);
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    const credit = creditBody(credited, 100, ctx.unit, 'adjustreversetransaction');
    const reserve = reserveBody(bet, 200, ctx.unit);
    const copies = [...Array.from({ length: 8 }, () => credit), ...Array.from({ length: 8 }, () => reserve)];
    const burst: Outcome[] = await Promise.all(copies.map((req) => ctx.client.post(req)));
    const statuses = new Map<string, number>(); // of the first answers that were retried: "HTTP 503" → count
    for (const [i, o] of burst.entries()) {
      const { outcome, retries } = await retried(ctx, copies[i]!, o);
      const what = `duplicate ${i < 8 ? 'credit' : 'reserve'} #${(i % 8) + 1} of 8 sent at once`;
      expectSuccess(outcome, retries ? `${what}, after ${retries} retries (first answered ${describe(o)})` : what);
      const first = o.status === undefined ? 'no answer' : `HTTP ${o.status}`;
      if (retries) statuses.set(first, (statuses.get(first) ?? 0) + 1);
    }
    await moved('after 8 concurrent copies of one credit and 8 of one reserve, retried as wagerline would (each must count once)', { cash: 100 - 200 });
    expectSuccess(await ctx.client.post(refundBetBody(bet, 200, ctx.unit)), 'refundBet (cleanup)');
    const late = [...statuses].map(([first, n]) => `${n} first answered ${first}`).join(', ');
    const how = late ? `all successes, after a retry of an answer wagerline retries for ${late}` : 'all successes';
    return `16 calls, ${how}; ${ctx.inspect ? 'each transaction took effect once' : 'effect not verifiable without GET /balances'}`;
  },
};

export const PROTOCOL_CHECKS: Check[] = [...REPLAYS, mismatch, extraFields, invalidCredentials, errorShape, confirmAboveReserve, concurrent];
