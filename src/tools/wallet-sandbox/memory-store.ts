// The in-memory store. execute() runs synchronously from lookup to write (no await in between),
// so on Node's single thread concurrent duplicates of one transactionId cannot interleave; the
// `race` break mode inserts an await there on purpose.
import { applyToBet, applyToUser, decide, isEffect, successAnswer, type BetState, type UserState } from './ledger.ts';
import { mismatchAnswer, raceWindow, record, view, type Opening, type RunFlags, type Store, type StoredTransaction } from './store.ts';
import type { Answer } from './codes.ts';
import type { TxRequest } from './validate.ts';

export function createMemoryStore(opening: Opening): Store {
  const users = new Map<string, UserState>();
  const bets = new Map<string, BetState>();
  const transactions = new Map<string, StoredTransaction>();

  const user = (id: string): UserState => users.get(id) ?? { cash: opening.cash, bonus: opening.bonus, reserved: 0 };

  function replay(stored: StoredTransaction, fp: string, flags: RunFlags): Answer {
    if (stored.fingerprint !== fp && !flags.ignoreMismatch) return mismatchAnswer(stored);
    if (flags.reapplyOnReplay) {
      users.set(stored.userId, applyToUser(user(stored.userId), stored.effect));
      const bet = bets.get(stored.betId);
      if (bet) bets.set(bet.betId, applyToBet(bet, stored, stored.effect)!);
      stored.effectCount += 1;
    }
    return { status: stored.status, body: stored.body };
  }

  function apply(req: TxRequest, fp: string, flags: RunFlags, now: Date): Answer {
    const before = user(req.userId);
    const bet = bets.get(req.betId);
    const outcome = decide(req, before, bet, flags);
    if (!isEffect(outcome)) return outcome;
    const after = applyToUser(before, outcome);
    users.set(req.userId, after);
    const nextBet = applyToBet(bet, req, outcome);
    if (nextBet) bets.set(req.betId, nextBet);
    const answer = successAnswer(req, after);
    const previous = transactions.get(req.transactionId);
    if (previous) previous.effectCount += 1; // only reachable in the race break mode
    else transactions.set(req.transactionId, record(req, fp, answer, outcome, now));
    return answer;
  }

  return {
    init: async () => undefined,
    async execute(req, fp, flags, now) {
      const stored = transactions.get(req.transactionId);
      if (stored) return replay(stored, fp, flags);
      if (flags.racy) await raceWindow();
      return apply(req, fp, flags, now);
    },
    async balances(userId) {
      const id = userId.toLowerCase();
      return { ...user(id), known: users.has(id) };
    },
    async seedUser(userId, balances) {
      const id = userId.toLowerCase();
      const current = user(id);
      users.set(id, { ...current, cash: balances.cash ?? current.cash, bonus: balances.bonus ?? current.bonus });
    },
    async effects() {
      return new Map([...transactions.values()].map((t) => [t.transactionId, t.effectCount]));
    },
    async transactions(betId) {
      const id = betId.toLowerCase();
      return [...transactions.values()].filter((t) => t.betId === id).map(view);
    },
  };
}
