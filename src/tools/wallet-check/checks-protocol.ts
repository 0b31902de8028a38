// Checks of the protocol rules: idempotent replays by transactionId, a reused transactionId with
// another amount, tolerance of unknown fields (spec 2.4), 401 for a bad credential and the error
// shape of spec 2.6, concurrent duplicates.
import { confirmBody, creditBody, debitBody, newBet, refundBetBody, reserveBody, settleBetBody, type Bet } from './bodies.ts';
import { describe, type Outcome } from './client.ts';
import type { Check } from './checks-flows.ts';
import { errorShapeProblem, expectRefusal, expectSuccess, fail, isSuccess, specPart, tracker, type Ctx } from './expect.ts';

type Step = { op: string; body: unknown };

/** Runs `setup`, then sends `last` twice: the replay must answer the same and move nothing. */
function replay(op: string, build: (ctx: Ctx, bet: Bet) => { setup: Step[]; last: Step; delta: number; cleanup?: Step }): Check {
  return {
    name: `replay of ${op}`,
    async run(ctx) {
      const bet = newBet(ctx.userId);
      const { setup, last, delta, cleanup } = build(ctx, bet);
      const moved = await tracker(ctx);
      for (const step of setup) expectSuccess(await ctx.client.post(step.op, step.body), `${step.op} (setup)`);
      const first = expectSuccess(await ctx.client.post(last.op, last.body), op);
      await moved(`after ${op}`, { cash: delta });
      const again = await ctx.client.post(last.op, last.body);
      if (!isSuccess(again)) fail(`the replay of ${op} with the same transactionId must return the original success, got ${describe(again)}`);
      if (specPart(again) !== specPart(first)) fail(`the replay answered ${describe(again)}; the original was ${describe(first)}`);
      await moved(`after the replay of ${op} (a replay must move nothing)`, { cash: delta });
      if (cleanup) expectSuccess(await ctx.client.post(cleanup.op, cleanup.body), `${cleanup.op} (cleanup)`);
      const same = again.text === first.text ? 'identical body' : 'same status and success; the bodies differ in extra fields';
      return `${same}; ${ctx.inspect ? 'no second effect on the balances' : 'effect not verifiable without GET /balances'}`;
    },
  };
}

const REPLAYS: Check[] = [
  replay('reserve', (c, bet) => ({
    setup: [], last: { op: 'reserve', body: reserveBody(bet, 500, c.unit) }, delta: -500,
    cleanup: { op: 'refundBet', body: refundBetBody(bet, 500, c.unit) }, // leave no funds held on the test account
  })),
  replay('confirm', (c, bet) => ({
    // A partial confirm: a replay that takes effect again releases the unaccepted 2.00 a second time.
    setup: [{ op: 'reserve', body: reserveBody(bet, 500, c.unit) }], last: { op: 'confirm', body: confirmBody(bet, 300, c.unit) }, delta: -300,
  })),
  replay('refundBet', (c, bet) => ({
    setup: [{ op: 'reserve', body: reserveBody(bet, 500, c.unit) }], last: { op: 'refundBet', body: refundBetBody(bet, 500, c.unit) }, delta: 0,
  })),
  replay('settleBet', (c, bet) => ({
    setup: [{ op: 'reserve', body: reserveBody(bet, 500, c.unit) }, { op: 'confirm', body: confirmBody(bet, 500, c.unit) }],
    last: { op: 'settleBet', body: settleBetBody(bet, 700, c.unit) }, delta: 200,
  })),
  replay('debit', (c, bet) => ({ setup: [], last: { op: 'debit', body: debitBody(bet, 100, c.unit, 'deductbetwin') }, delta: -100 })),
  replay('credit', (c, bet) => ({ setup: [], last: { op: 'credit', body: creditBody(bet, 100, c.unit, 'cashout') }, delta: 100 })),
];

const mismatch: Check = {
  name: 'same transactionId with another amount',
  async run(ctx) {
    const moved = await tracker(ctx);
    const body = creditBody(newBet(ctx.userId), 100, ctx.unit, 'cashout');
    expectSuccess(await ctx.client.post('credit', body), 'credit');
    const other = await ctx.client.post('credit', { ...body, amount: creditBody(newBet(ctx.userId), 200, ctx.unit, 'cashout').amount });
    const refusal = expectRefusal(other, 'the same transactionId with another amount must be refused');
    await moved('after the refused reuse (only the first credit may count)', { cash: 100 });
    return `refused with ${refusal}`;
  },
};

const extraFields: Check = {
  name: 'unknown extra fields tolerated',
  async run(ctx) {
    const bet = newBet(ctx.userId);
    const extra = { walletCheckExtra: { nested: [1, 'two'], note: 'the operator must tolerate extra fields (docs/wallet.md)' } };
    const reserve = reserveBody(bet, 300, ctx.unit);
    const confirm = confirmBody(bet, 300, ctx.unit);
    const steps: Array<[string, unknown]> = [
      ['reserve', { ...reserve, ...extra, metadata: { ...reserve.metadata, extraField: 'x' } }],
      ['confirm', { ...confirm, ...extra, betMetadata: { ...confirm.betMetadata, extraField: 1, legs: confirm.betMetadata.legs.map((l) => ({ ...l, extraField: true })) } }],
      ['settleBet', { ...settleBetBody(bet, 300, ctx.unit), ...extra }],
      ['credit', { ...creditBody(bet, 100, ctx.unit, 'cashout'), ...extra }],
      ['debit', { ...debitBody(bet, 100, ctx.unit, 'deductbetwin'), ...extra }],
    ];
    for (const [op, body] of steps) expectSuccess(await ctx.client.post(op, body), `${op} with unknown fields`);
    return 'reserve, confirm (also inside betMetadata and legs), settleBet, credit, debit accepted unknown fields';
  },
};

const invalidCredentials: Check = {
  name: 'invalid token → 401 in the error shape',
  async run(ctx) {
    const moved = await tracker(ctx);
    const o = await ctx.client.post('credit', creditBody(newBet(ctx.userId), 100, ctx.unit, 'cashout'), ctx.client.invalidAuthHeaders());
    if (o.status !== 401) fail(`a call with an invalid credential must get 401, got ${describe(o)}`);
    const problem = errorShapeProblem(o);
    if (problem) fail(problem);
    await moved('after the refused call', {});
    return `401 ${(o.json as { code: string }).code}`;
  },
};

const errorShape: Check = {
  name: 'error responses in the spec shape',
  async run(ctx) {
    const results = [];
    for (const op of ['confirm', 'refundBet'] as const) {
      const bet = newBet(ctx.userId);
      const body = op === 'confirm' ? confirmBody(bet, 100, ctx.unit) : refundBetBody(bet, 100, ctx.unit);
      results.push(`${op} of a never-reserved bet: ${expectRefusal(await ctx.client.post(op, body), `${op} of a bet never reserved`)}`);
    }
    return results.join('; ');
  },
};

const concurrent: Check = {
  name: 'concurrent duplicate calls',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    const credit = creditBody(bet, 100, ctx.unit, 'adjustreversetransaction');
    const reserve = reserveBody(bet, 200, ctx.unit);
    const all: Outcome[] = await Promise.all([
      ...Array.from({ length: 8 }, () => ctx.client.post('credit', credit)),
      ...Array.from({ length: 8 }, () => ctx.client.post('reserve', reserve)),
    ]);
    all.forEach((o, i) => expectSuccess(o, `duplicate ${i < 8 ? 'credit' : 'reserve'} #${(i % 8) + 1} of 8 sent at once`));
    await moved('after 8 concurrent copies of one credit and 8 of one reserve (each must count once)', { cash: 100 - 200 });
    expectSuccess(await ctx.client.post('refundBet', refundBetBody(bet, 200, ctx.unit)), 'refundBet (cleanup)');
    return `16 calls, all successes; ${ctx.inspect ? 'each transaction took effect once' : 'effect not verifiable without GET /balances'}`;
  },
};

export const PROTOCOL_CHECKS: Check[] = [...REPLAYS, mismatch, extraFields, invalidCredentials, errorShape, concurrent];
