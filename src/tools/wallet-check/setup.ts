// Bets set up for a check: wagerline sends debit and credit only for bets it reserved and confirmed
// (and settled, for a reversal of winnings), so the checks send them on such bets too — a wallet
// may refuse them for a bet it never saw.
import { confirmBody, creditBody, newBet, reserveBody, settleBetBody, type Bet } from './bodies.ts';
import { expectSuccess, type Ctx } from './expect.ts';

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
 * Bonus funds for the bonus bets of a check. wagerline never gives bonus (the operator does), so
 * the checker gives it as a manual adjustment — credit adjustreversetransaction with bonusFlag
 * true — on a cash bet it placed for the purpose: the test user needs no bonus of its own, and
 * the credit is for a bet the wallet knows, like every credit of wagerline's.
 * Balances: cash −1.00 (that bet's stake), bonus +`cents`.
 */
export async function fundBonus(ctx: Ctx, cents: number): Promise<void> {
  const carrier = await place(ctx, newBet(ctx.userId), FUNDING_STAKE);
  const credit = creditBody({ ...carrier, bonusFlag: true }, cents, ctx.unit, 'adjustreversetransaction');
  expectSuccess(await ctx.client.post(credit), 'credit adjustreversetransaction with bonusFlag true (bonus funds for the check)');
}
