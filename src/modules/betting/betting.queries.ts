// SQL of placed bets: the bet and its legs, its history, tenant limits and runner liability.
// Tables: src/db/migrations/0008_bets.sql.
import type { Queryable } from '../../db/pool.ts';
import type { BetStatus } from '../../racing/bet-lifecycle.ts';

export interface BetRow {
  tenant_id: string;
  bet_id: string;
  user_id: string;
  ticket_id: string;
  idempotency_key: string;
  request_hash: string;
  kind: string;
  status: BetStatus;
  stake: string;
  accepted_stake: string | null;
  combinations: number;
  original_percentage: string | null;
  percentage: string | null;
  original_odds: string | null;
  fixed_odds: string | null;
  boxed: boolean;
  bonus: boolean;
  bet_limit: string | null;
  reason_code: string | null;
  reason: string | null;
  medium: string | null;
  ip_address: string | null;
  created_at: Date;
  updated_at: Date;
  /** After placement (docs/settlement.md): the verdict and what the wallet was sent. */
  result: 'won' | 'lost' | null;
  payout: string;
  refunded: string;
  partial_refund: string;
  cash_out: string | null;
  adjusted: string;
  settled_at: Date | null;
  cancel_reason: string | null;
}

export interface LegRow {
  leg: number;
  meeting_id: string;
  race_number: number;
  event_id: string;
  event_name: string;
  meeting_name: string;
  event_time: Date;
  selections: number[][];
  seen_price: string | null;
  price: string | null;
}

export type NewBet = Omit<BetRow, 'status' | 'accepted_stake' | 'percentage' | 'fixed_odds' | 'bet_limit' | 'reason_code' | 'reason' | 'updated_at'
  | 'result' | 'payout' | 'refunded' | 'partial_refund' | 'cash_out' | 'adjusted' | 'settled_at' | 'cancel_reason'>;

/** The channel every change of a bet's state is announced on (bet-updates.ts listens). */
export const BET_UPDATES_CHANNEL = 'bet_updates';

/**
 * The SQL expression that announces a changed bet, for a row with tenant_id, bet_id and user_id
 * ($status replaced by the status expression). NOTIFY is delivered at commit, so only committed
 * changes go out, and a rolled back transaction announces nothing. The payload is small (about
 * 140 bytes; PostgreSQL allows 8,000): listeners read the bet itself.
 */
export const BET_UPDATE_NOTIFY = `pg_notify('${BET_UPDATES_CHANNEL}', json_build_object('tenant_id', tenant_id, 'bet_id', bet_id, 'user_id', user_id, 'status', $status)::text)`;

/**
 * The SQL that stores a pending bet with its legs and its first history entry, as common table
 * expressions for the statement that writes the bet's reserve (the wallet's ReserveSteps.open):
 * the last, `opened`, has a row when the bet was stored and none when the user's idempotency key
 * is already taken (nothing is written then). Announces the pending bet at commit.
 */
export function pendingBetSql(bet: NewBet, legs: LegRow[]): { name: string; with: string; values: unknown[] } {
  return {
    name: 'betting_pending_bet',
    with: `bet AS (
        INSERT INTO bets (tenant_id, bet_id, user_id, ticket_id, idempotency_key, request_hash, kind, status, stake, combinations,
                          original_percentage, original_odds, boxed, bonus, medium, ip_address, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
        ON CONFLICT (tenant_id, user_id, idempotency_key) DO NOTHING
        RETURNING tenant_id, bet_id, user_id
      ), legs AS (
        INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, seen_price, price)
        SELECT bet.tenant_id, bet.bet_id, l.* FROM bet,
          unnest($17::int[], $18::bigint[], $19::int[], $20::uuid[], $21::text[], $22::text[], $23::timestamptz[], $24::jsonb[], $25::numeric[], $26::numeric[]) AS l
        RETURNING 1
      ), history AS (
        INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause) SELECT tenant_id, bet_id, 1, $16, NULL, 'pending', 'placement' FROM bet
        RETURNING 1
      ), opened AS (
        SELECT ${BET_UPDATE_NOTIFY.replace('$status', "'pending'")} AS notified FROM bet
      )`,
    values: [bet.tenant_id, bet.bet_id, bet.user_id, bet.ticket_id, bet.idempotency_key, bet.request_hash, bet.kind, bet.stake,
      bet.combinations, bet.original_percentage, bet.original_odds, bet.boxed, bet.bonus, bet.medium, bet.ip_address, bet.created_at,
      legs.map((l) => l.leg), legs.map((l) => l.meeting_id), legs.map((l) => l.race_number), legs.map((l) => l.event_id),
      legs.map((l) => l.event_name), legs.map((l) => l.meeting_name), legs.map((l) => l.event_time),
      legs.map((l) => JSON.stringify(l.selections)), legs.map((l) => l.seen_price), legs.map((l) => l.price)],
  };
}

/** Sets the price taken on some legs of a bet (a price that rose between the check and the taking). */
export async function updateLegPrices(db: Queryable, tenantId: string, betId: string, legs: Array<{ leg: number; price: string }>): Promise<void> {
  await db.query(
    `UPDATE bet_legs l SET price = u.price FROM unnest($3::int[], $4::numeric[]) AS u(leg, price)
      WHERE l.tenant_id = $1 AND l.bet_id = $2 AND l.leg = u.leg`,
    [tenantId, betId, legs.map((l) => l.leg), legs.map((l) => l.price)],
  );
}

export async function findBetByKey(db: Queryable, tenantId: string, userId: string, key: string): Promise<BetRow | undefined> {
  const { rows } = await db.query<BetRow>('SELECT * FROM bets WHERE tenant_id = $1 AND user_id = $2 AND idempotency_key = $3', [tenantId, userId, key]);
  return rows[0];
}

export async function findBet(db: Queryable, tenantId: string, betId: string, lock = false): Promise<BetRow | undefined> {
  const { rows } = await db.query<BetRow>(`SELECT * FROM bets WHERE tenant_id = $1 AND bet_id = $2${lock ? ' FOR UPDATE' : ''}`, [tenantId, betId]);
  return rows[0];
}

export async function legsOf(db: Queryable, tenantId: string, betId: string): Promise<LegRow[]> {
  const { rows } = await db.query<LegRow>('SELECT * FROM bet_legs WHERE tenant_id = $1 AND bet_id = $2 ORDER BY leg', [tenantId, betId]);
  return rows;
}

/** The legs of several bets of one tenant, in one statement (a page of bets). */
export async function legsOfBets(db: Queryable, tenantId: string, betIds: string[]): Promise<Map<string, LegRow[]>> {
  const { rows } = await db.query<LegRow & { bet_id: string }>(
    'SELECT * FROM bet_legs WHERE tenant_id = $1 AND bet_id = ANY ($2::uuid[]) ORDER BY bet_id, leg', [tenantId, betIds]);
  const byBet = new Map<string, LegRow[]>(betIds.map((id) => [id, []]));
  for (const row of rows) byBet.get(row.bet_id)?.push(row);
  return byBet;
}

/** A user's bets, newest first, after the keyset (created_at, bet_id) when given. */
export async function betsOfUser(db: Queryable, tenantId: string, userId: string, after: { createdAt: string; betId: string } | null, limit: number): Promise<BetRow[]> {
  const { rows } = await db.query<BetRow>(
    `SELECT * FROM bets WHERE tenant_id = $1 AND user_id = $2
       AND ($3::timestamptz IS NULL OR (created_at, bet_id) < ($3::timestamptz, $4::uuid))
     ORDER BY created_at DESC, bet_id DESC LIMIT $5`,
    [tenantId, userId, after?.createdAt ?? null, after?.betId ?? null, limit],
  );
  return rows;
}

export interface Outcome {
  status: BetRow['status'];
  acceptedStake: string;
  percentage: string | null;
  fixedOdds: string | null;
  betLimit: string | null;
  reasonCode: string | null;
  reason: string | null;
}

/**
 * Moves a pending bet to its outcome and adds the history entry — and for a bet taken, its payout
 * to the runner's liability (locked already: lockLiabilityWithLimits) — in one statement; returns
 * the bet as it is now, or undefined when it was no longer pending (nothing is written then). The
 * next history seq is read in the statement's snapshot: every other writer of a bet's history
 * moves it out of pending first, under the row lock this update waits for, so none slips in between.
 */
export async function settlePlacement(db: Queryable, tenantId: string, betId: string, o: Outcome, now: Date, cause: string,
  liability?: { key: LiabilityKey; amount: string }): Promise<BetRow | undefined> {
  const { rows } = await db.query<BetRow>({
    name: 'betting_settle_placement',
    text: `WITH upd AS (
        UPDATE bets SET status = $3, accepted_stake = $4, percentage = $5, fixed_odds = $6, bet_limit = $7, reason_code = $8, reason = $9, updated_at = $10
         WHERE tenant_id = $1 AND bet_id = $2 AND status = 'pending'
        RETURNING *
      ), history AS (
        INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause, detail)
        SELECT tenant_id, bet_id, (SELECT coalesce(max(seq), 0) + 1 FROM bet_history h WHERE h.tenant_id = $1 AND h.bet_id = $2),
               $10, 'pending', status, $11, $12::jsonb
          FROM upd
      ), liability AS (
        UPDATE runner_liability SET liability = liability + $17
         WHERE tenant_id = $1 AND meeting_id = $13 AND race_number = $14 AND runner = $15 AND kind = $16 AND EXISTS (SELECT 1 FROM upd)
      )
      SELECT *, ${BET_UPDATE_NOTIFY.replace('$status', 'status')} AS notified FROM upd`,
    values: [tenantId, betId, o.status, o.acceptedStake, o.percentage, o.fixedOdds, o.betLimit, o.reasonCode, o.reason, now, cause,
      o.reasonCode ? JSON.stringify({ reason_code: o.reasonCode, reason: o.reason }) : null,
      liability?.key.meetingId ?? null, liability?.key.raceNumber ?? null, liability?.key.runner ?? null, liability?.key.kind ?? null,
      liability?.amount ?? null],
  });
  const row = rows[0] as (BetRow & { notified?: unknown }) | undefined;
  if (!row) return undefined;
  delete row.notified;
  return row;
}

/** Why a bet left pending past every placement's window reads as rejected (docs/betting.md). */
export const INTERRUPTED = { reason_code: 'placement_interrupted', reason: 'the placement was interrupted; any reservation was released' } as const;

/**
 * A bet pending for longer than any placement takes (`interruptedAfterMs`) was interrupted: it is
 * rejected (placement_interrupted), as every read shows it. Returns the bet as it stands: unchanged
 * when it is not such a bet, or when another writer moved it first.
 */
export async function rejectInterrupted(db: Queryable, bet: BetRow, now: Date, interruptedAfterMs: number): Promise<BetRow> {
  if (bet.status !== 'pending' || now.getTime() - bet.created_at.getTime() < interruptedAfterMs) return bet;
  const settled = await settlePlacement(db, bet.tenant_id, bet.bet_id, {
    status: 'rejected', acceptedStake: '0.00', percentage: null, fixedOdds: null, betLimit: null,
    reasonCode: INTERRUPTED.reason_code, reason: INTERRUPTED.reason }, now, INTERRUPTED.reason_code);
  return settled ?? (await findBet(db, bet.tenant_id, bet.bet_id))!;
}

export interface LimitsRow {
  max_stake: string | null;
  max_payout: string | null;
  max_runner_liability: string | null;
}

export async function findLimits(db: Queryable, tenantId: string): Promise<LimitsRow | undefined> {
  const { rows } = await db.query<LimitsRow>('SELECT max_stake, max_payout, max_runner_liability FROM tenant_limits WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function findLimitsWithTime(db: Queryable, tenantId: string): Promise<(LimitsRow & { updated_at: Date }) | undefined> {
  const { rows } = await db.query<LimitsRow & { updated_at: Date }>(
    'SELECT max_stake, max_payout, max_runner_liability, updated_at FROM tenant_limits WHERE tenant_id = $1', [tenantId]);
  return rows[0];
}

export async function upsertLimits(db: Queryable, tenantId: string, l: LimitsRow, now: Date): Promise<LimitsRow & { updated_at: Date }> {
  const { rows } = await db.query<LimitsRow & { updated_at: Date }>(
    `INSERT INTO tenant_limits (tenant_id, max_stake, max_payout, max_runner_liability, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET max_stake = $2, max_payout = $3, max_runner_liability = $4, updated_at = $5
     RETURNING max_stake, max_payout, max_runner_liability, updated_at`,
    [tenantId, l.max_stake, l.max_payout, l.max_runner_liability, now],
  );
  return rows[0]!;
}

export interface LiabilityKey {
  tenantId: string;
  meetingId: number;
  raceNumber: number;
  runner: number;
  kind: string;
}

/**
 * The runner's liability row, locked for this transaction (created at 0 when missing), and the
 * tenant's limits (null when it has none), in one statement.
 */
export async function lockLiabilityWithLimits(db: Queryable, key: LiabilityKey): Promise<{ liability: string } & { [K in keyof LimitsRow]: LimitsRow[K] | null }> {
  const { rows } = await db.query<{ liability: string } & { [K in keyof LimitsRow]: LimitsRow[K] | null }>({
    name: 'betting_lock_liability_with_limits',
    text: `WITH l AS (
        INSERT INTO runner_liability (tenant_id, meeting_id, race_number, runner, kind) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (tenant_id, meeting_id, race_number, runner, kind) DO UPDATE SET liability = runner_liability.liability
        RETURNING liability
      )
      SELECT l.liability, t.max_stake, t.max_payout, t.max_runner_liability FROM l LEFT JOIN tenant_limits t ON t.tenant_id = $1`,
    values: [key.tenantId, key.meetingId, key.raceNumber, key.runner, key.kind],
  });
  return rows[0]!;
}

/** Takes `amount` (dollars) off the runner's liability: an open bet closed before its race is settled. */
export async function releaseLiability(db: Queryable, key: LiabilityKey, amount: string): Promise<void> {
  await db.query(
    `UPDATE runner_liability SET liability = greatest(liability - $6::numeric, 0)
     WHERE tenant_id = $1 AND meeting_id = $2 AND race_number = $3 AND runner = $4 AND kind = $5`,
    [key.tenantId, key.meetingId, key.raceNumber, key.runner, key.kind, amount]);
}
