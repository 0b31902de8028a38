// The resolvers of the back-office schema (backoffice.schema.ts): thin calls into the back-office
// service with the request's caller; the fields that need more reads go through the request's
// loaders, so a page of bets costs a fixed number of statements whatever its size.
import type { BackofficeBet, BackofficeLeg } from '../betting/backoffice-reads.ts';
import type { BackofficeService, Caller, CancelResult, GetBetsInput } from './backoffice.service.ts';
import type { BackofficeLoaders } from './loaders.ts';

/** What every resolver gets from the request (built by the adapter's context function). */
export interface BackofficeContext {
  caller: Caller;
  loaders: BackofficeLoaders;
}

export function backofficeResolvers(backoffice: BackofficeService) {
  return {
    Query: {
      getBets: (_root: unknown, args: { input: GetBetsInput }, ctx: BackofficeContext) => backoffice.getBets(ctx.caller, args.input),
    },
    Mutation: {
      cancelBet: (_root: unknown, args: { bet: { id: string; tenant_id: string }; reason?: string | null }, ctx: BackofficeContext) =>
        backoffice.cancelBet(ctx.caller, args.bet, args.reason),
    },
    Bet: {
      legs: (bet: BackofficeBet, _args: unknown, ctx: BackofficeContext) => ctx.loaders.legs(bet),
      wallet_calls: (bet: BackofficeBet, _args: unknown, ctx: BackofficeContext) => ctx.loaders.walletCalls(bet),
      history: (bet: BackofficeBet, _args: unknown, ctx: BackofficeContext) => ctx.loaders.history(bet),
    },
    BetLeg: {
      positions_paid: (leg: BackofficeLeg) => leg.postions_paid,
    },
    CancelResult: {
      wallet_calls: (result: CancelResult, _args: unknown, ctx: BackofficeContext) => ctx.loaders.walletCalls(result.bet),
    },
  };
}
