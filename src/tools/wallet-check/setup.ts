// Bets set up for a check: wagerline sends debit and credit only for bets it reserved and confirmed
// (and settled, for a reversal of winnings), so the checks send them on such bets too — a wallet
// may refuse them for a bet it never saw.
import { confirmBody, creditBody, newBet, reserveBody, settleBetBody, type Bet } from './bodies.ts';
import { centsToDollars } from '../../racing/money.ts';
import { describe } from './client.ts';
import { expectSuccess, fail, isSuccess, readBalances, type Ctx } from './expect.ts';

/** Reserves and confirms `stake` for the bet, then pays `payout` with settleBet when given. */
export async function place(ctx: Ctx, bet: Bet, stake: number, payout?: number): Promise<Bet> {
  const kind = bet.bonusFlag ? ' of a bonus bet' : '';
  expectSuccess(await ctx.client.post(reserveBody(bet, stake, ctx.unit)), `reserve${kind} (setup)`);
  expectSuccess(await ctx.client.post(confirmBody(bet, stake, ctx.unit)), `confirm${kind} (setup)`);
  if (payout !== undefined) expectSuccess(await ctx.client.post(settleBetBody(bet, payout, ctx.unit)), `settleBet${kind} (setup)`);
  return bet;
}

/** The stake of the cash bet that carries a bonus funding: 1.00 of cash per funding. */
export const FUNDING_STAKE = 100;

/**
 * The bonus the run stakes when the wallet refuses the funding credit: the bonus flag check's 2.00
 * stake is lost (its winnings go to cash), then the last check asks for 3.00; 1.00 more is lost there.
 */
const OWN_BONUS_NEEDED = 500;

/**
 * Bonus funds for the bonus bets of a check. wagerline never gives bonus (the operator does), so
 * the checker gives it as a manual adjustment — credit adjustreversetransaction with bonusFlag
 * true — on a cash bet it placed for the purpose: the test user needs no bonus of its own, and
 * the credit is for a bet the wallet knows. wagerline itself never sends a bonusFlag that differs
 * from its bet's, so a wallet may refuse this one: the check then stakes the user's own bonus, when
 * GET /balances shows enough of it. Returns the change of balances it made: cash −1.00 (that
 * bet's stake), bonus +`cents` or nothing.
 */
export async function fundBonus(ctx: Ctx, cents: number): Promise<{ cash: number; bonus: number }> {
  const carrier = await place(ctx, newBet(ctx.userId), FUNDING_STAKE);
  const o = await ctx.client.post(creditBody({ ...carrier, bonusFlag: true }, cents, ctx.unit, 'adjustreversetransaction'));
  if (isSuccess(o)) return { cash: -FUNDING_STAKE, bonus: cents };
  const refused = o.status !== undefined && o.status >= 400 && o.status < 500;
  const own = refused && ctx.inspect ? await readBalances(ctx) : undefined;
  if (own && own.bonus >= cents) return { cash: -FUNDING_STAKE, bonus: 0 };
  fail(`credit adjustreversetransaction with bonusFlag true on a cash bet — the checker's way to give the test user bonus, a call ` +
    `wagerline never sends — got ${describe(o)}; if your wallet refuses it, give the test user ${centsToDollars(OWN_BONUS_NEEDED)} bonus ` +
    `or more (run with --user; GET /balances must show it): the bonus bets are then staked with it, ${centsToDollars(OWN_BONUS_NEEDED)} ` +
    `at the start (${centsToDollars(cents)} for this check), and 3.00 of it is spent`);
}
