// The PostgreSQL store: the sandbox's own schema (default wallet_sandbox), created at start with
// CREATE ... IF NOT EXISTS — not a service migration. One transaction per call: an advisory lock on
// the transactionId serialises duplicates (so they take effect once), then the user and bet rows are
// locked FOR UPDATE, the rules run, and the effect and the transaction record commit together.
import type pg from 'pg';
import { withTransaction } from '../../db/pool.ts';
import { applyToBet, applyToUser, decide, isEffect, successAnswer, type BetState, type Effect, type UserState } from './ledger.ts';
import { mismatchAnswer, raceWindow, record, view, type Opening, type RunFlags, type Store, type StoredTransaction } from './store.ts';
import type { Answer } from './codes.ts';
import type { TxRequest } from './validate.ts';

type Client = pg.PoolClient;

function ddl(s: string): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${s};
    CREATE TABLE IF NOT EXISTS ${s}.users (
      user_id text PRIMARY KEY, cash bigint NOT NULL, bonus bigint NOT NULL, reserved bigint NOT NULL DEFAULT 0);
    CREATE TABLE IF NOT EXISTS ${s}.bets (
      bet_id text PRIMARY KEY, user_id text NOT NULL, bonus boolean NOT NULL, status text NOT NULL,
      held bigint NOT NULL, confirmed bigint NOT NULL, refunded bigint NOT NULL, settled bigint NOT NULL,
      winnings bigint NOT NULL, closed_by text);
    CREATE TABLE IF NOT EXISTS ${s}.transactions (
      transaction_id text PRIMARY KEY, op text NOT NULL, bet_id text NOT NULL, user_id text NOT NULL,
      bonus_flag boolean NOT NULL, amount bigint NOT NULL, transaction_type text, fingerprint text NOT NULL,
      status integer NOT NULL, body json NOT NULL, effect jsonb NOT NULL, effect_count integer NOT NULL,
      created_at timestamptz NOT NULL);
    CREATE INDEX IF NOT EXISTS transactions_bet_idx ON ${s}.transactions (bet_id, created_at);
    -- A schema made before winnings were counted: its bets' settleBets stand for them (lenient:
    -- a debit or cash-out made then is not counted).
    ALTER TABLE ${s}.bets ADD COLUMN IF NOT EXISTS winnings bigint;
    UPDATE ${s}.bets SET winnings = settled WHERE winnings IS NULL;
    ALTER TABLE ${s}.bets ALTER COLUMN winnings SET NOT NULL;
    ${closedByColumn(s)}`;
}

/**
 * A schema made before the end of a bet was kept learns it from the transactions that took effect:
 * a bet with a cash-out was cashed out (even if an older sandbox settled it too), one with a
 * settleBet settled. Only when the column is added: null means "open" from then on.
 */
function closedByColumn(s: string): string {
  const had = (op: string, type: string | null) => `EXISTS (SELECT 1 FROM ${s}.transactions t WHERE t.bet_id = b.bet_id AND t.op = '${op}'`
    + `${type ? ` AND t.transaction_type = '${type}'` : ''})`;
  return `
    DO $migrate$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                      WHERE table_schema = '${s}' AND table_name = 'bets' AND column_name = 'closed_by') THEN
        ALTER TABLE ${s}.bets ADD COLUMN closed_by text;
        UPDATE ${s}.bets b SET closed_by = CASE WHEN ${had('credit', 'cashout')} THEN 'cashout' WHEN ${had('settleBet', null)} THEN 'settleBet' END;
      END IF;
    END $migrate$;`;
}

/** Thrown to make withTransaction start over (it retries SQLSTATE 40001). */
function retry(): Error {
  return Object.assign(new Error('concurrent bet creation; retrying'), { code: '40001' });
}

function toStored(r: Record<string, unknown>): StoredTransaction {
  return {
    transactionId: r.transaction_id as string, op: r.op as string, betId: r.bet_id as string, userId: r.user_id as string,
    bonusFlag: r.bonus_flag as boolean, amount: Number(r.amount), transactionType: (r.transaction_type as string | null) ?? null,
    fingerprint: r.fingerprint as string, status: r.status as number, body: r.body, effect: r.effect as Effect,
    effectCount: r.effect_count as number, at: r.created_at as Date,
  };
}

function toBet(r: Record<string, unknown> | undefined): BetState | undefined {
  if (!r) return undefined;
  return {
    betId: r.bet_id as string, userId: r.user_id as string, bonus: r.bonus as boolean, status: r.status as BetState['status'],
    held: Number(r.held), confirmed: Number(r.confirmed), refunded: Number(r.refunded), settled: Number(r.settled),
    winnings: Number(r.winnings), closedBy: (r.closed_by as BetState['closedBy']) ?? null,
  };
}

/** A schema name used unquoted in the store's SQL: lower-case letters, digits and _, at most 63. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createPgStore(pool: pg.Pool, schemaName: string, opening: Opening): Store {
  if (!SCHEMA_NAME.test(schemaName)) throw new Error(`invalid schema name "${schemaName}"`);
  const s = schemaName;

  /** The user, locked; one never seen has the opening balances and is written only by a call that moves money. */
  async function lockUser(tx: Client, userId: string): Promise<UserState & { isNew?: true }> {
    const { rows } = await tx.query(`SELECT cash, bonus, reserved FROM ${s}.users WHERE user_id = $1 FOR UPDATE`, [userId]);
    if (!rows[0]) return { cash: opening.cash, bonus: opening.bonus, reserved: 0, isNew: true };
    return { cash: Number(rows[0].cash), bonus: Number(rows[0].bonus), reserved: Number(rows[0].reserved) };
  }

  async function saveUser(tx: Client, userId: string, u: UserState, isNew = false): Promise<void> {
    if (!isNew) {
      await tx.query(`UPDATE ${s}.users SET cash = $2, bonus = $3, reserved = $4 WHERE user_id = $1`, [userId, u.cash, u.bonus, u.reserved]);
      return;
    }
    const { rowCount } = await tx.query(`INSERT INTO ${s}.users (user_id, cash, bonus, reserved) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [userId, u.cash, u.bonus, u.reserved]);
    if (!rowCount) throw retry(); // another call created the user meanwhile: start over and see it
  }

  async function saveBet(tx: Client, before: BetState | undefined, b: BetState): Promise<void> {
    const values = [b.betId, b.userId, b.bonus, b.status, b.held, b.confirmed, b.refunded, b.settled, b.winnings, b.closedBy];
    if (before) {
      await tx.query(`UPDATE ${s}.bets SET status = $2, held = $3, confirmed = $4, refunded = $5, settled = $6, winnings = $7, closed_by = $8
        WHERE bet_id = $1`, [b.betId, b.status, b.held, b.confirmed, b.refunded, b.settled, b.winnings, b.closedBy]);
      return;
    }
    const { rowCount } = await tx.query(
      `INSERT INTO ${s}.bets (bet_id, user_id, bonus, status, held, confirmed, refunded, settled, winnings, closed_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`, values);
    if (!rowCount) throw retry(); // another user's reserve of the same bet won: start over and see it
  }

  async function replay(tx: Client, stored: StoredTransaction, fp: string, flags: RunFlags): Promise<Answer> {
    if (stored.fingerprint !== fp && !flags.ignoreMismatch) return mismatchAnswer(stored);
    if (flags.reapplyOnReplay) {
      const user = await lockUser(tx, stored.userId);
      await saveUser(tx, stored.userId, applyToUser(user, stored.effect), user.isNew);
      const bet = toBet((await tx.query(`SELECT * FROM ${s}.bets WHERE bet_id = $1 FOR UPDATE`, [stored.betId])).rows[0]);
      if (bet) await saveBet(tx, bet, applyToBet(bet, stored, stored.effect)!);
      await tx.query(`UPDATE ${s}.transactions SET effect_count = effect_count + 1 WHERE transaction_id = $1`, [stored.transactionId]);
    }
    return { status: stored.status, body: stored.body };
  }

  async function run(tx: Client, req: TxRequest, fp: string, flags: RunFlags, now: Date): Promise<Answer> {
    if (!flags.racy) await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`wallet-sandbox:${req.transactionId}`]);
    const found = await tx.query(`SELECT * FROM ${s}.transactions WHERE transaction_id = $1`, [req.transactionId]);
    if (found.rows[0]) return replay(tx, toStored(found.rows[0]), fp, flags);
    if (flags.racy) await raceWindow();
    const before = await lockUser(tx, req.userId);
    const bet = toBet((await tx.query(`SELECT * FROM ${s}.bets WHERE bet_id = $1 FOR UPDATE`, [req.betId])).rows[0]);
    const outcome = decide(req, before, bet, flags);
    if (!isEffect(outcome)) return outcome;
    const after = applyToUser(before, outcome);
    await saveUser(tx, req.userId, after, before.isNew);
    const nextBet = applyToBet(bet, req, outcome);
    if (nextBet) await saveBet(tx, bet, nextBet);
    const answer = successAnswer(req, after);
    const r = record(req, fp, answer, outcome, now);
    // ON CONFLICT is reachable only in the race break mode (no advisory lock): count the second effect.
    await tx.query(
      `INSERT INTO ${s}.transactions (transaction_id, op, bet_id, user_id, bonus_flag, amount, transaction_type,
         fingerprint, status, body, effect, effect_count, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12)
       ON CONFLICT (transaction_id) DO UPDATE SET effect_count = ${s}.transactions.effect_count + 1`,
      [r.transactionId, r.op, r.betId, r.userId, r.bonusFlag, r.amount, r.transactionType, r.fingerprint, r.status,
        JSON.stringify(r.body), JSON.stringify(r.effect), now]);
    return answer;
  }

  return {
    async init() {
      await withTransaction(pool, async (tx) => {
        // Two sandboxes starting at once on one database must not race on CREATE ... IF NOT EXISTS.
        await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('wallet-sandbox:init', 0))");
        await tx.query(ddl(s));
      });
    },
    execute: (req, fp, flags, now) => withTransaction(pool, (tx) => run(tx, req, fp, flags, now), { attempts: 10 }),
    async balances(userId) {
      const { rows } = await pool.query(`SELECT cash, bonus, reserved FROM ${s}.users WHERE user_id = $1`, [userId.toLowerCase()]);
      if (!rows[0]) return { cash: opening.cash, bonus: opening.bonus, reserved: 0, known: false };
      return { cash: Number(rows[0].cash), bonus: Number(rows[0].bonus), reserved: Number(rows[0].reserved), known: true };
    },
    async seedUser(userId, balances) {
      await pool.query(
        `INSERT INTO ${s}.users (user_id, cash, bonus) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE SET cash = COALESCE($4, ${s}.users.cash), bonus = COALESCE($5, ${s}.users.bonus)`,
        [userId.toLowerCase(), balances.cash ?? opening.cash, balances.bonus ?? opening.bonus, balances.cash ?? null, balances.bonus ?? null]);
    },
    async effects() {
      const { rows } = await pool.query(`SELECT transaction_id, effect_count FROM ${s}.transactions`);
      return new Map(rows.map((r) => [r.transaction_id as string, r.effect_count as number]));
    },
    async transactions(betId) {
      const { rows } = await pool.query(`SELECT * FROM ${s}.transactions WHERE bet_id = $1 ORDER BY created_at, transaction_id`, [betId.toLowerCase()]);
      return rows.map((r) => view(toStored(r)));
    },
  };
}
