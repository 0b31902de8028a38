// Many stored bets at once, written straight into the betting tables by set-based SQL (a few
// statements for thousands of bets), for tests that need volume rather than placements: accepted
// WIN bets at fixed odds on one race, each with one leg and its placement history.
import type { Pool } from '../../src/db/pool.ts';

export interface BulkBets {
  tenantId: string;
  count: number;
  meetingId?: number;
  raceNumber?: number;
  /** Bet i is created at this instant plus i milliseconds (several bets share one instant with `sameInstant`). */
  createdAt?: Date;
  /** Every bet created at the same instant: the bet id alone orders them. */
  sameInstant?: boolean;
}

/** Inserts the bets and returns their ids. */
export async function insertBulkBets(pool: Pool, b: BulkBets): Promise<string[]> {
  const start = (b.createdAt ?? new Date('2024-05-01T00:00:00Z')).toISOString();
  const { rows } = await pool.query<{ bet_id: string }>(
    `WITH inserted AS (
       INSERT INTO bets (tenant_id, bet_id, user_id, ticket_id, idempotency_key, request_hash, kind, status, stake, accepted_stake,
                         combinations, original_odds, fixed_odds, boxed, bonus, medium, created_at, updated_at)
       SELECT $1::uuid, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'bulk-' || i, 'bulk', 'WIN', 'accepted', 10, 10,
              1, 3, 3, false, false, 'internet', ts, ts
         FROM generate_series(1, $2::int) AS i,
              LATERAL (SELECT $3::timestamptz + CASE WHEN $6::boolean THEN interval '0' ELSE (i * interval '1 millisecond') END AS ts) t
       RETURNING tenant_id, bet_id, created_at
     ), legs AS (
       INSERT INTO bet_legs (tenant_id, bet_id, leg, meeting_id, race_number, event_id, event_name, meeting_name, event_time, selections, seen_price, price,
                             struck_at)
       SELECT tenant_id, bet_id, 1, $4::bigint, $5::int, gen_random_uuid(), 'Bulk R' || $5::int, 'Bulk', created_at + interval '1 hour', '[[1]]', 3, 3,
              created_at FROM inserted
     ), history AS (
       INSERT INTO bet_history (tenant_id, bet_id, seq, at, from_status, to_status, cause)
       SELECT tenant_id, bet_id, s.seq, created_at, s.from_status, s.to_status, s.cause FROM inserted,
              (VALUES (1, NULL, 'pending', 'placement'), (2, 'pending', 'accepted', 'accepted')) AS s(seq, from_status, to_status, cause)
     )
     SELECT bet_id FROM inserted ORDER BY created_at, bet_id`,
    [b.tenantId, b.count, start, b.meetingId ?? 990001, b.raceNumber ?? 1, b.sameInstant ?? false],
  );
  return rows.map((r) => r.bet_id);
}
