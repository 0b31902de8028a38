// Checks that a race's bets were settled once through the wallet (one final result, no amendment):
// no taken bet left unsettled; per bet, one settleBet if settled (none otherwise), at most one
// refundBet, and the amounts sent equal the bet's ledger (payout, refunded, partial refund); every
// call delivered (the placement guards skipped); each delivered transactionId took effect exactly
// once at the wallet; and each user's wallet balances equal the opening balances moved by the calls
// delivered. Shared by the settlement tests and `npm run bench:settlement`.
import type { Queryable } from '../../src/db/pool.ts';
import { centsToDollars, parseDollars } from '../../src/racing/money.ts';

export interface WalletView {
  /** How many times each transactionId took effect. */
  effects(): Promise<Map<string, number>>;
  /** Balances in dollars of the users named. */
  balances(userIds: string[]): Promise<Map<string, { cash: string; bonus: string; reserved: string }>>;
}

export interface SettledOnce {
  problems: string[];
  bets: number;
  /** Calls queued by settlement (after placement's reserve, guard and confirm). */
  calls: Record<string, number>;
  users: number;
}

export async function checkSettledOnce(db: Queryable, tenantId: string, race: { meetingId: number; raceNumber: number }, wallet: WalletView,
  opening: { cash: string; bonus: string }, options: { walletExclusive?: boolean } = {}): Promise<SettledOnce> {
  const problems: string[] = [];
  const onRace = `SELECT DISTINCT bet_id FROM bet_legs WHERE tenant_id = $1 AND meeting_id = $2 AND race_number = $3`;
  const args = [tenantId, race.meetingId, race.raceNumber];
  const { rows: [count] } = await db.query<{ bets: number; open: number }>(
    `SELECT count(*)::int AS bets, count(*) FILTER (WHERE status IN ('accepted', 'partially_accepted'))::int AS open
       FROM bets WHERE tenant_id = $1 AND bet_id IN (${onRace})`, args);
  if (count!.open) problems.push(`${count!.open} of ${count!.bets} bets are still open`);

  const { rows: wrong } = await db.query(
    `WITH c AS (
       SELECT bet_id,
              count(*) FILTER (WHERE op = 'settleBet') AS settles,
              count(*) FILTER (WHERE op = 'refundBet' AND NOT placement_guard) AS refunds,
              coalesce(sum(amount) FILTER (WHERE op = 'settleBet'), 0)
                - coalesce(sum(amount) FILTER (WHERE op = 'debit' AND extra->>'transactionType' = 'deductbetwin'), 0) AS paid,
              coalesce(sum(amount) FILTER (WHERE op = 'refundBet' AND NOT placement_guard), 0) AS refunded,
              coalesce(sum(amount) FILTER (WHERE op = 'credit' AND extra->>'transactionType' = 'betpartialrefund'), 0) AS partial
         FROM wallet_calls WHERE tenant_id = $1 AND bet_id IN (${onRace}) GROUP BY bet_id)
     SELECT b.bet_id, b.status, b.payout, b.refunded, b.partial_refund, c.settles, c.refunds, c.paid, c.refunded AS sent_refund, c.partial
       FROM bets b JOIN c USING (bet_id)
      WHERE b.tenant_id = $1 AND ((b.status = 'settled') <> (c.settles = 1) OR c.settles > 1 OR c.refunds > 1
            OR c.paid <> b.payout OR c.refunded <> b.refunded OR c.partial <> b.partial_refund)
      LIMIT 5`, args);
  for (const w of wrong) problems.push(`bet ${w.bet_id} (${w.status}): ${JSON.stringify(w)}`);

  const { rows: byStatus } = await db.query<{ status: string; op: string; placement_guard: boolean; n: number }>(
    'SELECT status, op, placement_guard, count(*)::int AS n FROM wallet_calls WHERE tenant_id = $1 GROUP BY 1, 2, 3', [tenantId]);
  for (const r of byStatus) {
    if (r.status !== 'delivered' && !(r.status === 'skipped' && r.placement_guard)) problems.push(`${r.n} ${r.op} call(s) ${r.status}`);
  }
  const calls: Record<string, number> = {};
  const { rows: queued } = await db.query<{ op: string; n: number }>(
    `SELECT op, count(*)::int AS n FROM wallet_calls WHERE tenant_id = $1 AND seq > 3 GROUP BY op ORDER BY op`, [tenantId]);
  for (const r of queued) calls[r.op] = r.n;

  const effects = await wallet.effects();
  const { rows: delivered } = await db.query<{ transaction_id: string }>(
    "SELECT transaction_id FROM wallet_calls WHERE tenant_id = $1 AND status = 'delivered'", [tenantId]);
  const notOnce = delivered.filter((d) => effects.get(d.transaction_id) !== 1);
  if (notOnce.length) {
    problems.push(`${notOnce.length} delivered call(s) did not take effect exactly once at the wallet, e.g. ${notOnce[0]!.transaction_id}: ${effects.get(notOnce[0]!.transaction_id) ?? 0}`);
  }
  const twice = [...effects.values()].filter((n) => n !== 1).length;
  if (twice) problems.push(`${twice} wallet transaction(s) took effect more than once`);
  if (options.walletExclusive && effects.size !== delivered.length) {
    problems.push(`the wallet recorded ${effects.size} transactions, the outbox delivered ${delivered.length}`);
  }

  // What the delivered calls moved, per user, in cents: the stake left the pocket of its bonusFlag
  // at reserve, the unaccepted part came back at confirm; winnings go to cash (spec 2.4).
  const { rows: moved } = await db.query<{ user_id: string; cash: string; bonus: string }>(
    `SELECT c.user_id,
            (100 * sum(CASE WHEN c.op = 'settleBet' OR NOT c.bonus_flag THEN c.d ELSE 0 END))::bigint AS cash,
            (100 * sum(CASE WHEN c.op <> 'settleBet' AND c.bonus_flag THEN c.d ELSE 0 END))::bigint AS bonus
       FROM (SELECT c.user_id, c.op, c.bonus_flag,
                    CASE c.op WHEN 'reserve' THEN -c.amount WHEN 'confirm' THEN r.amount - c.amount WHEN 'debit' THEN -c.amount ELSE c.amount END AS d
               FROM wallet_calls c
               LEFT JOIN wallet_calls r ON r.tenant_id = c.tenant_id AND r.bet_id = c.bet_id AND r.op = 'reserve'
              WHERE c.tenant_id = $1 AND c.status = 'delivered') c
      GROUP BY c.user_id`, [tenantId]);
  const balances = await wallet.balances(moved.map((m) => m.user_id));
  const openCash = parseDollars(opening.cash)!;
  const openBonus = parseDollars(opening.bonus)!;
  let off = 0;
  for (const m of moved) {
    const want = { cash: centsToDollars(openCash + BigInt(m.cash)), bonus: centsToDollars(openBonus + BigInt(m.bonus)), reserved: '0.00' };
    const got = balances.get(m.user_id);
    if (!got || got.cash !== want.cash || got.bonus !== want.bonus || got.reserved !== want.reserved) {
      if (off++ < 3) problems.push(`user ${m.user_id}: wallet has ${JSON.stringify(got)}, the delivered calls make ${JSON.stringify(want)}`);
    }
  }
  if (off > 3) problems.push(`${off} users' balances differ in all`);
  return { problems, bets: count!.bets, calls, users: moved.length };
}
