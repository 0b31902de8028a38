// SQL of placed bets: the bet and its legs, its history, its outcome at placement (limits and
// runner liability: limits.queries.ts). Tables: src/db/migrations/0008_bets.sql.
import type { Queryable } from '../../db/pool.ts';
import type { BetStatus } from '../../racing/bet-lifecycle.ts';
import type { LiabilityKey } from './limits.queries.ts';

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
  /**
   * When the leg's price was agreed: the bet's creation, or its take when the price changed
   * meanwhile (deductions read it). Null on legs stored before it was kept: read as the bet's
   * creation (struckAt).
   */
  struck_at: Date | null;
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
 * The SQL that stores pending bets with their legs and first history entries, as common table
 * expressions for the statement that writes their reserves (the wallet's OpeningSql): the last,
 * `opened`, has the id of each bet stored, and none of a bet whose user's idempotency key is
 * already taken (nothing is written for it then). Announces the pending bets at commit.
 */
export function pendingBetsSql(bets: Array<{ bet: NewBet; legs: LegRow[] }>): { name: string; with: string; values: unknown[] } {
  const col = <T>(get: (bet: NewBet) => T) => bets.map((b) => get(b.bet));
  const legs = bets.flatMap(({ bet, legs }) => legs.map((l) => ({ ...l, bet_id: bet.bet_id })));
  const leg = <T>(get: (l: LegRow & { bet_id: string }) => T) => legs.map(get);
  return {
    name: 'betting_pending_bets',
    with: `bet AS (
        INSERT INTO bets (tenant_id, bet_id, user_id, ticket_id, idempotency_key, request_hash, kind, status, stake, combinations,
                          original_percentage, original_odds, boxed, bonus, medium, ip_address, created_at, updated_at)
        SELECT b.tenant_id, b.bet_id, b.user_id, b.ticket_id, b.idempotency_key, b.request_hash, b.kind, 'pending', b.stake, b.combinations,
               b.original_percentage, b.original_odds, b.boxed, b.bonus, b.medium, b.ip_address, b.created_at, b.created_at
          FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::int[],
                      $10::numeric[], $11::numeric[], $12::bool[], $13::bool[], $14::text[], $15::text[], $16::timestamptz[]) WITH ORDINALITY
            AS b(tenant_id, bet_id, user_id, ticket_id, idempotency_key, request_hash, kind, stake, combinations,
                 original_percentage, original_odds, boxed, bonus, medium, ip_address, created_at, i)
         ORDER BY b.i
        ON CONFLICT (tenant_id, user_id, idempotency_key) DO NOTHING
        RETURNING tenant_id, bet_id, user_id, created_at
      ), legs AS (
        INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, seen_price, price,
                              struck_at)
        SELECT bet.tenant_id, bet.bet_id, l.leg, l.meeting_id, l.race_number, l.event_id, l.event_name, l.meeting_name, l.event_time, l.selections,
               l.seen_price, l.price, bet.created_at
          FROM unnest($17::uuid[], $18::int[], $19::bigint[], $20::int[], $21::uuid[], $22::text[], $23::text[], $24::timestamptz[], $25::jsonb[],
                      $26::numeric[], $27::numeric[])
            AS l(bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, seen_price, price)
          JOIN bet ON bet.bet_id = l.bet_id
        RETURNING 1
      ), history AS (
        INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause) SELECT tenant_id, bet_id, 1, created_at, NULL, 'pending', 'placement' FROM bet
        RETURNING 1
      ), opened AS (
        SELECT bet_id, ${BET_UPDATE_NOTIFY.replace('$status', "'pending'")} AS notified FROM bet
      )`,
    values: [col((b) => b.tenant_id), col((b) => b.bet_id), col((b) => b.user_id), col((b) => b.ticket_id), col((b) => b.idempotency_key),
      col((b) => b.request_hash), col((b) => b.kind), col((b) => b.stake), col((b) => b.combinations), col((b) => b.original_percentage),
      col((b) => b.original_odds), col((b) => b.boxed), col((b) => b.bonus), col((b) => b.medium), col((b) => b.ip_address), col((b) => b.created_at),
      leg((l) => l.bet_id), leg((l) => l.leg), leg((l) => l.meeting_id), leg((l) => l.race_number), leg((l) => l.event_id), leg((l) => l.event_name),
      leg((l) => l.meeting_name), leg((l) => l.event_time), leg((l) => JSON.stringify(l.selections)), leg((l) => l.seen_price), leg((l) => l.price)],
  };
}

/** When `leg` of `bet` was struck (LegRow.struck_at). */
export const struckAt = (bet: Pick<BetRow, 'created_at'>, leg: Pick<LegRow, 'struck_at'>): Date => leg.struck_at ?? bet.created_at;

/** Sets the price taken on some legs of a bet (a price that changed between the check and the taking), struck `now`. */
export async function updateLegPrices(db: Queryable, tenantId: string, betId: string, legs: Array<{ leg: number; price: string }>, now: Date): Promise<void> {
  await db.query(
    `UPDATE bet_legs l SET price = u.price, struck_at = $5 FROM unnest($3::int[], $4::numeric[]) AS u(leg, price)
      WHERE l.tenant_id = $1 AND l.bet_id = $2 AND l.leg = u.leg`,
    [tenantId, betId, legs.map((l) => l.leg), legs.map((l) => l.price), now],
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

/** The outcome of a bet refused at placement: nothing accepted, `code` and `reason` say why (`limit`: the limit that left nothing). */
export const rejection = (code: string, reason: string, limit: string | null = null): Outcome => ({
  status: 'rejected', acceptedStake: '0.00', percentage: null, fixedOdds: null, betLimit: limit, reasonCode: code, reason,
});

/** A pending bet's outcome, as settlePlacements writes it. */
export interface Settling {
  tenantId: string;
  betId: string;
  outcome: Outcome;
  cause: string;
  /** A bet taken on a runner: its payout added to the runner's liability (locked already: lockLiabilities). */
  liability?: { key: LiabilityKey; amount: string };
}

/**
 * Moves pending bets to their outcomes and adds their history entries — and for the bets taken on
 * a runner, their payouts to its liability, summed per runner — in one statement; returns the bets
 * as they are now, in no particular order, without those no longer pending (nothing is written for
 * them). The next history seq is read in the statement's snapshot: every other writer of a bet's
 * history moves it out of pending first, under the row lock this update waits for, so none slips
 * in between.
 */
export async function settlePlacements(db: Queryable, items: Settling[], now: Date): Promise<BetRow[]> {
  const col = <T>(get: (item: Settling) => T) => items.map(get);
  const { rows } = await db.query<BetRow & { notified?: unknown }>({
    name: 'betting_settle_placements',
    text: `WITH u AS (
        SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::numeric[], $5::numeric[], $6::numeric[], $7::text[], $8::text[],
                             $9::text[], $10::text[], $11::jsonb[], $12::bigint[], $13::int[], $14::int[], $15::text[], $16::numeric[])
          AS u(tenant_id, bet_id, status, accepted_stake, percentage, fixed_odds, bet_limit, reason_code, reason, cause, detail,
               meeting_id, race_number, runner, kind, liability)
      ), upd AS (
        UPDATE bets b SET status = u.status, accepted_stake = u.accepted_stake, percentage = u.percentage, fixed_odds = u.fixed_odds,
               bet_limit = u.bet_limit, reason_code = u.reason_code, reason = u.reason, updated_at = $17
          FROM u
         WHERE b.tenant_id = u.tenant_id AND b.bet_id = u.bet_id AND b.status = 'pending'
        RETURNING b.*
      ), history AS (
        INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause, detail)
        SELECT upd.tenant_id, upd.bet_id, (SELECT coalesce(max(seq), 0) + 1 FROM bet_history h WHERE h.tenant_id = upd.tenant_id AND h.bet_id = upd.bet_id),
               $17, 'pending', upd.status, u.cause, u.detail
          FROM upd JOIN u ON u.tenant_id = upd.tenant_id AND u.bet_id = upd.bet_id
      ), liability AS (
        UPDATE runner_liability r SET liability = r.liability + a.amount
          FROM (SELECT u.tenant_id, u.meeting_id, u.race_number, u.runner, u.kind, sum(u.liability) AS amount
                  FROM u JOIN upd ON u.tenant_id = upd.tenant_id AND u.bet_id = upd.bet_id
                 WHERE u.liability IS NOT NULL GROUP BY 1, 2, 3, 4, 5) a
         WHERE r.tenant_id = a.tenant_id AND r.meeting_id = a.meeting_id AND r.race_number = a.race_number AND r.runner = a.runner AND r.kind = a.kind
      )
      SELECT *, ${BET_UPDATE_NOTIFY.replace('$status', 'status')} AS notified FROM upd`,
    values: [col((i) => i.tenantId), col((i) => i.betId), col((i) => i.outcome.status), col((i) => i.outcome.acceptedStake),
      col((i) => i.outcome.percentage), col((i) => i.outcome.fixedOdds), col((i) => i.outcome.betLimit), col((i) => i.outcome.reasonCode),
      col((i) => i.outcome.reason), col((i) => i.cause),
      col((i) => (i.outcome.reasonCode ? JSON.stringify({ reason_code: i.outcome.reasonCode, reason: i.outcome.reason }) : null)),
      col((i) => i.liability?.key.meetingId ?? null), col((i) => i.liability?.key.raceNumber ?? null), col((i) => i.liability?.key.runner ?? null),
      col((i) => i.liability?.key.kind ?? null), col((i) => i.liability?.amount ?? null), now],
  });
  for (const row of rows) delete row.notified;
  return rows;
}

/** settlePlacements of one bet: the bet as it is now, or undefined when it was no longer pending. */
export async function settlePlacement(db: Queryable, tenantId: string, betId: string, outcome: Outcome, now: Date, cause: string,
  liability?: { key: LiabilityKey; amount: string }): Promise<BetRow | undefined> {
  const [row] = await settlePlacements(db, [{ tenantId, betId, outcome, cause, ...(liability && { liability }) }], now);
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
  const settled = await settlePlacement(db, bet.tenant_id, bet.bet_id, rejection(INTERRUPTED.reason_code, INTERRUPTED.reason), now,
    INTERRUPTED.reason_code);
  return settled ?? (await findBet(db, bet.tenant_id, bet.bet_id))!;
}
