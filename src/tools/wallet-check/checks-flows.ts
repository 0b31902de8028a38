// Checks of the money flows of spec 2.4 and 3: token endpoint, reserve/confirm/settleBet (full and
// partial acceptance, a loser's 0.00, a second settleBet of a bet), refundBet before and after
// confirm (a scratched runner, a cancelled winner), each debit and credit transactionType, the
// bonus flag (reserve, confirm, settleBet; refundBet, a partial refund, reversals, a cash-out).
import { confirmBody, CREDIT_TYPES, creditBody, DEBIT_TYPES, debitBody, newBet, refundBetBody, reserveBody, settleBetBody } from './bodies.ts';
import { describe } from './client.ts';
import { expectSuccess, fail, tracker, type Ctx } from './expect.ts';
import { fundBonus, place } from './setup.ts';

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
    // Any 2xx, as wagerline's caller and tenant set-wallet take it.
    const ok = token.status !== undefined && token.status >= 200 && token.status < 300;
    if (!ok || !body) fail(`POST /auth/token: expected a 2xx with a JSON body, got ${describe(token)}`);
    const problems = [
      typeof body.access_token === 'string' && body.access_token ? '' : 'access_token (non-empty string)',
      Number.isInteger(body.expires_in) && (body.expires_in as number) > 0 ? '' : 'expires_in (positive integer)',
      typeof body.token_type === 'string' && body.token_type.toLowerCase() === 'bearer' ? '' : 'token_type ("bearer")',
      // scope is never read by wagerline, and RFC 6749 lets a server leave it out.
      body.scope === undefined || body.scope === null || typeof body.scope === 'string' ? '' : 'scope (absent, null or string)',
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
      expectSuccess(await ctx.client.post(reserveBody(bet, reserved, ctx.unit)), 'reserve');
      await moved('after reserve (funds held)', { cash: -reserved });
      expectSuccess(await ctx.client.post(confirmBody(bet, accepted, ctx.unit)), 'confirm');
      await moved(`after confirm of ${accepted / 100} of ${reserved / 100} (the rest released)`, { cash: -accepted });
      expectSuccess(await ctx.client.post(settleBetBody(bet, payout, ctx.unit)), 'settleBet');
      await moved('after settleBet (winnings to cash)', { cash: payout - accepted });
      return verified(ctx);
    },
  };
}

/**
 * A result that changes pays the difference with a second settleBet of the same bet (wagerline's
 * settlement, docs/settlement-running.md): the wallet must take it as a new credit, not a duplicate.
 */
const resettle: Check = {
  name: 'settleBet twice (an amended result pays the difference)',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    expectSuccess(await ctx.client.post(reserveBody(bet, 500, ctx.unit)), 'reserve');
    expectSuccess(await ctx.client.post(confirmBody(bet, 500, ctx.unit)), 'confirm');
    expectSuccess(await ctx.client.post(settleBetBody(bet, 1000, ctx.unit)), 'settleBet');
    await moved('after the first settleBet', { cash: 500 });
    expectSuccess(await ctx.client.post(settleBetBody(bet, 400, ctx.unit)), 'second settleBet of the bet');
    await moved('after the second settleBet (both paid: 10.00 + 4.00)', { cash: 900 });
    return verified(ctx);
  },
};

/**
 * Calls equal in all but their transactionId are two transactions: an operator's two adjustments
 * of 1.00 on one bet, a result amended away and back (settleBet, debit deductbetwin, settleBet of
 * the same amount). A wallet that spots duplicates by bet, operation and amount instead of by
 * transactionId would swallow the second of each.
 */
const equalCalls: Check = {
  name: 'equal calls under two transactionIds (both count)',
  async run(ctx) {
    const bet = await place(ctx, newBet(ctx.userId), 100);
    const moved = await tracker(ctx);
    for (const nth of ['a first', 'a second']) {
      expectSuccess(await ctx.client.post(creditBody(bet, 100, ctx.unit, 'adjustreversetransaction')), `${nth} credit adjustreversetransaction of 1.00`);
    }
    await moved('after a second credit adjustreversetransaction of 1.00 under its own transactionId (both count)', { cash: 200 });
    expectSuccess(await ctx.client.post(settleBetBody(bet, 300, ctx.unit)), 'settleBet 3.00');
    expectSuccess(await ctx.client.post(debitBody(bet, 300, ctx.unit, 'deductbetwin')), 'debit deductbetwin 3.00 (the result amended to a loss)');
    expectSuccess(await ctx.client.post(settleBetBody(bet, 300, ctx.unit)), 'settleBet 3.00 again (amended back to a win)');
    await moved('after settleBet 3.00, debit deductbetwin 3.00, then settleBet 3.00 again under its own transactionId (paid again)', { cash: 500 });
    return verified(ctx);
  },
};

const refundFlow: Check = {
  name: 'reserve → refundBet',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = newBet(ctx.userId);
    expectSuccess(await ctx.client.post(reserveBody(bet, 1000, ctx.unit)), 'reserve');
    await moved('after reserve', { cash: -1000 });
    expectSuccess(await ctx.client.post(refundBetBody(bet, 1000, ctx.unit)), 'refundBet');
    await moved('after refundBet (reservation released)', {}, { reserved: 0 });
    return verified(ctx);
  },
};

/**
 * A scratched runner, an abandoned race, a refund verdict: wagerline returns the accepted stake
 * of a confirmed bet with refundBet. After a partial confirm the whole stake must be back where it
 * came from (cash, or bonus for a bonus bet) and nothing held. Whole amounts: cents are the
 * partial flow's concern. A bonus bet's funds come from `fundBonus` (cash −1.00, bonus +2.00, or the user's own bonus).
 */
function refundAfterConfirm(bonus: boolean): Check {
  const where = bonus ? 'bonus' : 'cash';
  const [reserved, accepted] = bonus ? [200, 100] : [1000, 600];
  return {
    name: `reserve → confirm (partial) → refundBet${bonus ? ' of a bonus bet' : ''}`,
    async run(ctx) {
      const moved = await tracker(ctx);
      const funded = bonus ? await fundBonus(ctx, reserved) : { cash: 0, bonus: 0 };
      const bet = newBet(ctx.userId, bonus);
      expectSuccess(await ctx.client.post(reserveBody(bet, reserved, ctx.unit)), 'reserve');
      expectSuccess(await ctx.client.post(confirmBody(bet, accepted, ctx.unit)), `confirm of ${accepted / 100} of ${reserved / 100}`);
      await moved(`after confirm of ${accepted / 100} of ${reserved / 100} (the rest released)`, { ...funded, [where]: funded[where] - accepted });
      expectSuccess(await ctx.client.post(refundBetBody(bet, accepted, ctx.unit)), 'refundBet of the accepted stake of a confirmed bet');
      await moved(`after refundBet of the accepted stake (back to ${where}, nothing held)`, funded, { reserved: 0 });
      return verified(ctx);
    },
  };
}

/**
 * A settled winner cancelled (docs/bets-admin.md): the winnings paid are taken back with debit
 * betwincancelled, then the stake is returned with refundBet. The user ends where they started.
 */
const cancelledWinner: Check = {
  name: 'settleBet → debit (betwincancelled) → refundBet (a winner cancelled)',
  async run(ctx) {
    const moved = await tracker(ctx);
    const bet = await place(ctx, newBet(ctx.userId), 500, 1200);
    await moved('after reserve, confirm 5.00 and settleBet 12.00', { cash: 700 });
    expectSuccess(await ctx.client.post(debitBody(bet, 1200, ctx.unit, 'betwincancelled')), 'debit betwincancelled of the winnings paid');
    await moved('after debit betwincancelled 12.00 (the winnings taken back)', { cash: -500 });
    expectSuccess(await ctx.client.post(refundBetBody(bet, 500, ctx.unit)), 'refundBet of the stake of a cancelled winner');
    await moved('after refundBet 5.00 (the stake back)', {}, { reserved: 0 });
    return verified(ctx);
  },
};

/** Reversals of winnings: on a bet reserved and confirmed for 1.00 and settled for 3.00. */
const debits: Check[] = DEBIT_TYPES.map((type) => ({
  name: `debit (${type})`,
  async run(ctx) {
    const bet = await place(ctx, newBet(ctx.userId), 100, 300);
    const moved = await tracker(ctx);
    expectSuccess(await ctx.client.post(debitBody(bet, 100, ctx.unit, type)), `debit ${type}`);
    await moved(`after debit ${type}`, { cash: -100 });
    return verified(ctx);
  },
}));

/** Cash-outs, adjustments, partial refunds: on a bet reserved and confirmed for 1.00. */
const credits: Check[] = CREDIT_TYPES.map((type) => ({
  name: `credit (${type})`,
  async run(ctx) {
    const bet = await place(ctx, newBet(ctx.userId), 100);
    const moved = await tracker(ctx);
    expectSuccess(await ctx.client.post(creditBody(bet, 100, ctx.unit, type)), `credit ${type}`);
    await moved(`after credit ${type}`, { cash: 100 });
    return verified(ctx);
  },
}));

const bonusFlag: Check = {
  name: 'bonus flag',
  async run(ctx) {
    const moved = await tracker(ctx);
    const funded = await fundBonus(ctx, 200);
    await moved('after a bonus credit (bonus balance, not cash; the 1.00 is the stake of the cash bet it was credited on)', funded);
    const bet = newBet(ctx.userId, true);
    expectSuccess(await ctx.client.post(reserveBody(bet, 200, ctx.unit)), 'reserve with bonusFlag true');
    await moved('after a bonus reserve', { cash: funded.cash, bonus: funded.bonus - 200 });
    expectSuccess(await ctx.client.post(confirmBody(bet, 200, ctx.unit)), 'confirm with bonusFlag true');
    expectSuccess(await ctx.client.post(settleBetBody(bet, 300, ctx.unit)), 'settleBet of a bonus bet');
    await moved('after settleBet of a bonus bet (winnings go to cash)', { cash: funded.cash + 300, bonus: funded.bonus - 200 });
    return verified(ctx);
  },
};

/**
 * A bonus bet's stake moves in bonus — its refund and a partial refund (credit betpartialrefund)
 * included; its winnings move in cash, as settleBet pays them (spec 2.4): their reversals
 * (deductbetwin, betwincancelled) take cash and a cash-out pays cash, whatever bonusFlag says —
 * taken from bonus, a reversed win would leave the user the cash. Each flow as wagerline sends
 * it, on a bet of its own.
 */
const bonusRefundAndDebit: Check = {
  name: 'bonus refund, reversal and cash-out',
  async run(ctx) {
    await fundBonus(ctx, 300);
    const moved = await tracker(ctx);
    const refunded = newBet(ctx.userId, true);
    expectSuccess(await ctx.client.post(reserveBody(refunded, 200, ctx.unit)), 'reserve with bonusFlag true');
    await moved('after a bonus reserve', { bonus: -200 });
    expectSuccess(await ctx.client.post(refundBetBody(refunded, 200, ctx.unit)), 'refundBet of a bonus bet');
    await moved('after refundBet of a bonus bet (back to the bonus balance)', {});
    // Settled with a partial refund, reversed in part, then cancelled (docs/settlement-running.md, docs/bets-admin.md).
    const reversed = await place(ctx, newBet(ctx.userId, true), 200);
    expectSuccess(await ctx.client.post(creditBody(reversed, 100, ctx.unit, 'betpartialrefund')), 'credit betpartialrefund of a bonus bet');
    await moved('after confirm 2.00 then credit betpartialrefund 1.00 of a bonus bet (stake returned to bonus)', { bonus: -100 });
    expectSuccess(await ctx.client.post(settleBetBody(reversed, 300, ctx.unit)), 'settleBet of a bonus bet');
    expectSuccess(await ctx.client.post(debitBody(reversed, 100, ctx.unit, 'deductbetwin')), 'debit deductbetwin of a bonus bet');
    await moved('after settleBet 3.00 then deductbetwin 1.00 of a bonus bet (winnings paid and taken back in cash)', { bonus: -100, cash: 200 });
    expectSuccess(await ctx.client.post(debitBody(reversed, 200, ctx.unit, 'betwincancelled')), 'debit betwincancelled of a bonus bet');
    await moved('after debit betwincancelled 2.00 of a bonus bet (the rest of the winnings taken back in cash)', { bonus: -100 });
    expectSuccess(await ctx.client.post(refundBetBody(reversed, 100, ctx.unit)), 'refundBet of the rest of a cancelled bonus bet\'s stake');
    await moved('after refundBet 1.00 of a cancelled bonus bet (the stake back in bonus)', {});
    const cashedOut = await place(ctx, newBet(ctx.userId, true), 100);
    expectSuccess(await ctx.client.post(creditBody(cashedOut, 200, ctx.unit, 'cashout')), 'credit cashout of a bonus bet');
    await moved('after a cash-out of a bonus bet (paid in cash, as winnings are)', { bonus: -100, cash: 200 });
    return verified(ctx);
  },
};

export const FLOW_CHECKS: Check[] = [
  tokenEndpoint,
  betFlow('reserve → confirm (full) → settleBet', 1000, 1000, 2500),
  // Cents in every amount, none exact in binary (4.35 * 100 is 434.99999999999994 as a float): a
  // wallet that drops them, or truncates amount * 100 down (10.20, 4.35) or up (8.05), fails here.
  betFlow('reserve → confirm (partial) → settleBet', 1020, 435, 805),
  // wagerline closes a losing bet with a settleBet of 0.00 (docs/settlement-running.md).
  betFlow('reserve → confirm → settleBet 0.00 (a losing bet)', 500, 500, 0),
  resettle,
  equalCalls,
  refundFlow,
  refundAfterConfirm(false),
  refundAfterConfirm(true),
  cancelledWinner,
  ...debits,
  ...credits,
  bonusFlag,
  bonusRefundAndDebit,
];
