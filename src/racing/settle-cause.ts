// What decided a verdict, for the bet's history (docs/settlement-running.md, Running settlement). A race's
// settlement runs on the latest facts of the bet's races, not on those of the change that queued
// it: a scratching's settlement still queued when the result comes settles on the result. So the
// cause is read from the facts the verdict rests on, never from the change that queued the race.
import { voidLeg } from './settle.ts';
import type { RaceFacts, SettleBet, Verdict } from './settle-facts.ts';

export type SettlementCause = 'result' | 'amendment' | 'scratching' | 'abandoned';

interface Decider { cause: SettlementCause; at: number }

/** The race's final result as a decider: an amended one is an amendment. */
function resultOf(race: RaceFacts): Decider {
  return { cause: race.amended ? 'amendment' : 'result', at: race.resultedAt?.getTime() ?? 0 };
}

/** What decided one leg of a settled bet: its result, or for a multi's void leg what voided it. */
function legDecider(bet: SettleBet, leg: SettleBet['legs'][number]): Decider {
  if (bet.kind === 'MULTI' && voidLeg(leg)) {
    if (leg.race.status === 'abandoned') return { cause: 'abandoned', at: leg.race.abandonedAt?.getTime() ?? 0 };
    return { cause: 'scratching', at: leg.race.scratched.get(leg.selections[0]![0]!)!.at.getTime() };
  }
  return resultOf(leg.race);
}

/**
 * The cause of a decided verdict: a refund names what refunded it (a scratching, an abandonment,
 * the result that found too few starters for place betting); a settled bet the last of the facts it
 * waited for — the result (or amendment) of a race of the bet, or for a multi the scratching or
 * abandonment that voided its last open leg. A result recorded at the same instant as a void wins
 * (the bet is settled on a result).
 */
export function settlementCause(bet: SettleBet, verdict: Exclude<Verdict, { state: 'open' }>): SettlementCause {
  if (verdict.state === 'refund') {
    if (verdict.reason === 'race_abandoned') return 'abandoned';
    if (verdict.reason === 'runner_scratched') return 'scratching';
    // no_place_betting: given by a single race's final result, by the starters it was run with.
    return resultOf(bet.legs[0]!.race).cause;
  }
  const deciders = bet.legs.map((leg) => legDecider(bet, leg));
  const isResult = (d: Decider) => d.cause === 'result' || d.cause === 'amendment';
  return deciders.reduce((last, d) => (d.at > last.at || (d.at === last.at && isResult(d) && !isResult(last)) ? d : last)).cause;
}
