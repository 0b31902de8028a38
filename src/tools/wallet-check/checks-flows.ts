// Checks of the money flows of spec 2.4 and 3: token endpoint, reserve/confirm/settleBet (full and
// partial acceptance, a loser's 0.00, a second settleBet of a bet), reserve/refundBet, each debit
// and credit transactionType, the bonus flag (credit, reserve, confirm, settleBet; refundBet, a
// reversal and a cash-out).
import { confirmBody, CREDIT_TYPES, creditBody, DEBIT_TYPES, debitBody, newBet, refundBetBody, reserveBody, settleBetBody } from './bodies.ts';
import { describe } from './client.ts';
import { expectSuccess, fail, tracker, type Ctx } from './expect.ts';

export interface Check {
  name: string;
  run(ctx: Ctx): Promise<string>;
}

const verified = (ctx: Ctx) => (ctx.inspect ? 'balances verified' : 'answers only (no GET /balances to verify balances)');

const tokenEndpoint: Check = {
  name: 'token endpoint',
  async run(ctx) {
    let token;
    try {
      token = await ctx.client.requestToken();
    } catch {
      return 'not applicable: API-key authentication (docs/wallet.md)';
    }
    const body = token.json as Record<string, unknown> | undefined;
    if (token.status !== 200 || !body) fail(`POST /auth/token: expected 200 with a JSON body, got ${describe(token)}`);
    const problems = [
      typeof body.access_token === 'string' && body.access_token ? '' : 'access_token (non-empty string)',
      Number.isInteger(body.expires_in) && (body.expires_in as number) > 0 ? '' : 'expires_in (positive integer)',
      typeof body.token_type === 'string' && body.token_type.toLowerCase() === 'bearer' ? '' : 'token_type ("bearer")',
      'scope' in body && (body.scope === null || typeof body.scope === 'string') ? '' : 'scope (null or string)',
    ].filter(Boolean);
    if (problems.length) fail(`the token response (docs/wallet.md, Authentication) lacks ${problems.join(', ')}: ${describe(token)}`);
    const wrong = await ctx.client.requestToken('wallet-check-wrong-secret');
    if (wrong.status === undefined || wrong.status < 400 || wrong.status >= 500) {
      fail(`a wrong client_secret must be refused with a 4xx, got ${describe(wrong)}`);
    }
    return `token_type ${String(body.token_type)}, expires_in ${String(body.expires_in)} s; a wrong secret gets ${wrong.status}`;
  },
};

function betFlow(name: string, reserved: number, accepted: number, payout: number): Check {
  return {
    name,
    async run(ctx) {
      const moved = await tracker(ctx);
      const bet = newBet(ctx.userId);
      expectSuccess(await ctx.client.post('reserve', reserveBody(bet, reserved, ctx.unit)), 'reserve');
      await moved('after reserve (funds held)', { cash: -reserved });
      expectSuccess(await ctx.client.post('confirm', confirmBody(bet, accepted, ctx.unit)), 'confirm');
      await moved(`after confirm of ${accepted / 100} of ${reserved / 100} (the rest released)`, { cash: -accepted });
      expectSuccess(await ctx.client.post('settleBet', settleBetBody(bet, payout, ctx.unit)), 'settleBet');
      await moved('after settleBet (winnings to cash)', { cash: payout - accepted });
      return verified(ctx);
    },
  };
}

/**
 * A result that changes pays the difference with a second settleBet of the same bet (wagerline's
 * settlement, docs/settlement.md): the wallet must take it as a new credit, not a duplicate.
 */
const resettle: Check = {
  name: 'settleBet twice (an amended result pays the difference)',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    expectSuccess(await ctx.client.post('reserve', reserveBody(bet, 500, ctx.unit)), 'reserve');
    expectSuccess(await ctx.client.post('confirm', confirmBody(bet, 500, ctx.unit)), 'confirm');
    expectSuccess(await ctx.client.post('settleBet', settleBetBody(bet, 1000, ctx.unit)), 'settleBet');
    await moved('after the first settleBet', { cash: 500 });
    expectSuccess(await ctx.client.post('settleBet', settleBetBody(bet, 400, ctx.unit)), 'second settleBet of the bet');
    await moved('after the second settleBet (both paid: 10.00 + 4.00)', { cash: 900 });
    return verified(ctx);
  },
};

const refundFlow: Check = {
  name: 'reserve → refundBet',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    expectSuccess(await ctx.client.post('reserve', reserveBody(bet, 1000, ctx.unit)), 'reserve');
    await moved('after reserve', { cash: -1000 });
    expectSuccess(await ctx.client.post('refundBet', refundBetBody(bet, 1000, ctx.unit)), 'refundBet');
    await moved('after refundBet (reservation released)', {});
    return verified(ctx);
  },
};

const debits: Check[] = DEBIT_TYPES.map((type) => ({
  name: `debit (${type})`,
  async run(ctx) {
    const moved = await tracker(ctx);
    expectSuccess(await ctx.client.post('debit', debitBody(newBet(ctx.userId), 100, ctx.unit, type)), `debit ${type}`);
    await moved(`after debit ${type}`, { cash: -100 });
    return verified(ctx);
  },
}));

const credits: Check[] = CREDIT_TYPES.map((type) => ({
  name: `credit (${type})`,
  async run(ctx) {
    const moved = await tracker(ctx);
    expectSuccess(await ctx.client.post('credit', creditBody(newBet(ctx.userId), 100, ctx.unit, type)), `credit ${type}`);
    await moved(`after credit ${type}`, { cash: 100 });
    return verified(ctx);
  },
}));

const bonusFlag: Check = {
  name: 'bonus flag',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId, true);
    expectSuccess(await ctx.client.post('credit', creditBody(bet, 200, ctx.unit, 'adjustreversetransaction')), 'credit with bonusFlag true');
    await moved('after a bonus credit (bonus balance, not cash)', { bonus: 200 });
    expectSuccess(await ctx.client.post('reserve', reserveBody(bet, 200, ctx.unit)), 'reserve with bonusFlag true');
    await moved('after a bonus reserve', {});
    expectSuccess(await ctx.client.post('confirm', confirmBody(bet, 200, ctx.unit)), 'confirm with bonusFlag true');
    expectSuccess(await ctx.client.post('settleBet', settleBetBody(bet, 300, ctx.unit)), 'settleBet of a bonus bet');
    await moved('after settleBet of a bonus bet (winnings go to cash)', { cash: 300 });
    return verified(ctx);
  },
};

/**
 * A bonus bet's stake moves in bonus; its winnings move in cash, as settleBet pays them (spec
 * 2.4): their reversal (deductbetwin) takes cash and a cash-out pays cash, whatever bonusFlag
 * says — taken from bonus, a reversed win would leave the user the cash. Each flow as wagerline
 * sends it, on a bet of its own.
 */
const bonusRefundAndDebit: Check = {
  name: 'bonus refund, reversal and cash-out',
  async run(ctx) {
    const moved = await tracker(ctx);
    const refunded = newBet(ctx.userId, true);
    expectSuccess(await ctx.client.post('credit', creditBody(refunded, 300, ctx.unit, 'adjustreversetransaction')), 'credit with bonusFlag true');
    expectSuccess(await ctx.client.post('reserve', reserveBody(refunded, 200, ctx.unit)), 'reserve with bonusFlag true');
    await moved('after a bonus reserve', { bonus: 100 });
    expectSuccess(await ctx.client.post('refundBet', refundBetBody(refunded, 200, ctx.unit)), 'refundBet of a bonus bet');
    await moved('after refundBet of a bonus bet (back to the bonus balance)', { bonus: 300 });
    const reversed = newBet(ctx.userId, true);
    expectSuccess(await ctx.client.post('reserve', reserveBody(reversed, 100, ctx.unit)), 'reserve of a second bonus bet');
    expectSuccess(await ctx.client.post('confirm', confirmBody(reversed, 100, ctx.unit)), 'confirm of a bonus bet');
    expectSuccess(await ctx.client.post('settleBet', settleBetBody(reversed, 300, ctx.unit)), 'settleBet of a bonus bet');
    expectSuccess(await ctx.client.post('debit', debitBody(reversed, 100, ctx.unit, 'deductbetwin')), 'debit deductbetwin of a bonus bet');
    await moved('after settleBet 3.00 then deductbetwin 1.00 of a bonus bet (winnings paid and taken back in cash)', { bonus: 200, cash: 200 });
    const cashedOut = newBet(ctx.userId, true);
    expectSuccess(await ctx.client.post('reserve', reserveBody(cashedOut, 100, ctx.unit)), 'reserve of a third bonus bet');
    expectSuccess(await ctx.client.post('confirm', confirmBody(cashedOut, 100, ctx.unit)), 'confirm of a bonus bet');
    expectSuccess(await ctx.client.post('credit', creditBody(cashedOut, 200, ctx.unit, 'cashout')), 'credit cashout of a bonus bet');
    await moved('after a cash-out of a bonus bet (paid in cash, as winnings are)', { bonus: 100, cash: 400 });
    return verified(ctx);
  },
};

export const FLOW_CHECKS: Check[] = [
  tokenEndpoint,
  betFlow('reserve → confirm (full) → settleBet', 1000, 1000, 2500),
  // Cents in every amount: a wallet that drops or rounds them fails here.
  betFlow('reserve → confirm (partial) → settleBet', 1050, 625, 1275),
  // wagerline closes a losing bet with a settleBet of 0.00 (docs/settlement.md).
  betFlow('reserve → confirm → settleBet 0.00 (a losing bet)', 500, 500, 0),
  resettle,
  refundFlow,
  ...debits,
  ...credits,
  bonusFlag,
  bonusRefundAndDebit,
];
