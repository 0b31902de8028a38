// Steps of the settlement property tests: placings from a finishing order, and the operator's
// changes to a bet (cancel, cash out, adjust) drawn and applied the same way in every such test.
import fc from 'fast-check';
import type { Queryable } from '../../src/db/pool.ts';
import { centsToDollars, parseDollars } from '../../src/racing/money.ts';

/** Places from a finishing order cut into dead-heat groups, scratched runners left out, at least 3 placed when as many run (a final result of these races must fill its places paid and its trifecta). */
export function placings(order: number[], groups: number[], scratched: Set<number>): number[][] {
  const runners = order.filter((r) => !scratched.has(r));
  const out: number[][] = [];
  for (const size of groups) if (runners.length) out.push(runners.splice(0, size));
  while (out.flat().length < 3 && runners.length) out.push(runners.splice(0, 1));
  return out;
}

/** An operator's change to the bet: a cash out is of a share of its accepted stake, an adjustment of some cents. */
export type BetAction = { op: 'cancel' } | { op: 'cashOut'; percent: number } | { op: 'adjust'; cents: number };

export const betActionArbs: Array<fc.Arbitrary<BetAction>> = [
  fc.constant({ op: 'cancel' as const }),
  fc.record({ op: fc.constant('cashOut' as const), percent: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ op: fc.constant('adjust' as const), cents: fc.integer({ min: 1, max: 500 }) }),
];

interface BetActions {
  cancelBet(ref: BetRef, input: { reason: string }): Promise<unknown>;
  cashOut(ref: BetRef, amount: string): Promise<unknown>;
  adjust(ref: BetRef, amount: string, reason: string): Promise<unknown>;
}
type BetRef = { tenantId: string; betId: string };

/** Applies the change through the bets service (a refusal, as for a bet already closed, is the caller's to expect). */
export async function applyBetAction(bets: BetActions, db: Queryable, ref: BetRef, step: BetAction): Promise<void> {
  if (step.op === 'cancel') await bets.cancelBet(ref, { reason: 'property' });
  else if (step.op === 'cashOut') {
    const bet = (await db.query<{ accepted_stake: string }>('SELECT accepted_stake FROM bets WHERE bet_id = $1', [ref.betId])).rows[0]!;
    await bets.cashOut(ref, centsToDollars(BigInt(Math.max(1, Math.floor(Number(parseDollars(bet.accepted_stake)!) * step.percent / 100)))));
  } else await bets.adjust(ref, centsToDollars(BigInt(step.cents)), 'goodwill');
}
