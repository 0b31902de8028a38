// The floor routes of `BENCH_FLOOR=1 npm run bench:backoffice` (npm run bench:backoffice-floor), in
// the bench only: plain Fastify and `pg`, no wagerline code, doing per request the least any design
// must do to answer a page of bets by id with every field of the back-office record.
//   POST /bets  ONE statement in which PostgreSQL builds the whole JSON answer text (the bets with
//               every column the record uses, their legs with their races' facts and meeting
//               codes, history, wallet calls with attempts, the pagination); the text is sent
//               as it comes, never parsed or serialised in Node.
//   POST /bare  a fixed answer computed once at start (the same statement over the first 100
//               bets), no database: HTTP and the load generator alone.
// Body of both: {"tenant_ids": [...], "bet_ids": [...]}. Run as a process of its own (env
// DATABASE_URL, PG_POOL); prints {"url"} when listening.
import Fastify from 'fastify';
import pg from 'pg';

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.PG_POOL ?? 10), application_name: 'backoffice-floor',
  options: '-c TimeZone=UTC' });
db.on('error', () => undefined);

// What backoffice.queries.ts (betsPage, with legs and history), results.queries.ts (raceFacts),
// catalogue.queries.ts (meetingCodes) and controls.queries.ts (callsOfBetKeys) read for a page,
// as one statement: each bet's legs, history and wallet calls by one lateral aggregate per bet, and
// each race's facts once however many legs name it. Instants and numerics are JSON's own (ISO 8601
// in UTC, numbers), not the record's text.
const FLOOR_SQL = `
WITH page AS (
  SELECT b.* FROM unnest($1::uuid[]) AS t(tenant_id)
   CROSS JOIN LATERAL (SELECT x.* FROM bets x WHERE x.tenant_id = t.tenant_id AND x.bet_id = ANY ($2::uuid[])
                        ORDER BY x.created_at, x.bet_id LIMIT $3::int + 1) b
   ORDER BY b.created_at, b.bet_id LIMIT $3::int + 1
), shown AS (
  SELECT * FROM page ORDER BY created_at, bet_id LIMIT $3::int
), races AS MATERIALIZED (
  SELECT k.meeting_id, k.race_number, json_build_object('sport_id', m.code, 'jurisdiction', m.jurisdiction, 'race_status', r.status,
      'placings', res.placings, 'dividends', res.dividends,
      'starters', (SELECT count(*) FROM runners u WHERE u.meeting_id = k.meeting_id AND u.race_number = k.race_number AND NOT u.scratched),
      'scratched', (SELECT json_agg(json_build_object('runner', u.runner_number, 'at', u.scratched_at, 'win', u.win_deduction, 'place', u.place_deduction))
                      FROM runners u WHERE u.meeting_id = k.meeting_id AND u.race_number = k.race_number AND u.scratched),
      'place_terms', coalesce((SELECT terms FROM place_terms WHERE jurisdiction = m.jurisdiction), (SELECT terms FROM place_terms WHERE jurisdiction = '*'))) AS facts
    FROM (SELECT DISTINCT l.meeting_id, l.race_number FROM shown b JOIN bet_legs l ON l.tenant_id = b.tenant_id AND l.bet_id = b.bet_id) k
    LEFT JOIN meetings m ON m.meeting_id = k.meeting_id
    LEFT JOIN race_starts r ON r.meeting_id = k.meeting_id AND r.race_number = k.race_number
    LEFT JOIN LATERAL (SELECT placings, dividends FROM race_results x WHERE x.meeting_id = k.meeting_id AND x.race_number = k.race_number AND x.final
                        ORDER BY x.version DESC LIMIT 1) res ON true
)
SELECT '{"bets":' || coalesce(json_agg(json_build_object(
           'id', b.bet_id, 'created_at', b.created_at, 'tenant_id', b.tenant_id, 'user_id', b.user_id, 'ticket_id', b.ticket_id, 'kind', b.kind,
           'status', b.status, 'stake', b.stake, 'accepted_stake', b.accepted_stake, 'original_percentage', b.original_percentage,
           'percentage', b.percentage, 'original_odds', b.original_odds, 'fixed_odds', b.fixed_odds, 'boxed', b.boxed, 'bonus', b.bonus,
           'bet_limit', b.bet_limit, 'reason_code', b.reason_code, 'reason', b.reason, 'cancel_reason', b.cancel_reason, 'medium', b.medium,
           'ip_address', b.ip_address, 'result', b.result, 'payout', b.payout, 'refunded', b.refunded, 'partial_refund', b.partial_refund,
           'cash_out', b.cash_out, 'adjusted', b.adjusted, 'settled_at', b.settled_at, 'live', coalesce(lj.live, false), 'last_seq', h.last_seq,
           'legs', coalesce(lj.legs, '[]'), 'wallet_calls', coalesce(c.calls, '[]'), 'history', coalesce(h.history, '[]'))
         ORDER BY b.created_at, b.bet_id)::text, '[]')
    || ',"pagination":{"last_id":' || coalesce(to_json((array_agg(b.bet_id ORDER BY b.created_at DESC, b.bet_id DESC))[1])::text, 'null')
    || ',"count":' || count(b.bet_id)::text || ',"has_more":' || ((SELECT count(*) FROM page) > $3::int)::text || '}}' AS body
  FROM shown b
  LEFT JOIN LATERAL (
    SELECT bool_or(l.event_time <= b.created_at) AS live,
           json_agg(json_build_object('leg', l.leg, 'meeting_id', l.meeting_id, 'race_number', l.race_number, 'event_id', l.event_id,
             'event_name', l.event_name, 'meeting_name', l.meeting_name, 'event_time', l.event_time, 'selections', l.selections,
             'seen_price', l.seen_price, 'price', l.price, 'race', f.facts) ORDER BY l.leg) AS legs
      FROM bet_legs l LEFT JOIN races f ON f.meeting_id = l.meeting_id AND f.race_number = l.race_number
     WHERE l.tenant_id = b.tenant_id AND l.bet_id = b.bet_id) lj ON true
  LEFT JOIN LATERAL (
    SELECT max(h.seq) AS last_seq,
           json_agg(json_build_object('seq', h.seq, 'at', h.at, 'from', h.from_status, 'to', h.to_status, 'cause', h.cause, 'detail', h.detail)
             ORDER BY h.seq) AS history
      FROM bet_history h WHERE h.tenant_id = b.tenant_id AND h.bet_id = b.bet_id) h ON true
  LEFT JOIN LATERAL (
    SELECT json_agg(json_build_object('sequence', w.seq, 'operation', w.op, 'transaction_type', w.extra -> 'transactionType', 'amount', w.amount,
             'transaction_id', w.transaction_id, 'status', w.status, 'bonus', w.bonus_flag, 'created_at', w.created_at, 'finished_at', w.finished_at,
             'next_attempt_at', w.next_attempt_at, 'last_http_status', w.last_http_status, 'last_error', w.last_error, 'note', w.note,
             'attempts', coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.started_at, 'duration_ms', a.duration_ms,
                                     'http_status', a.http_status, 'outcome', a.outcome, 'error', a.error) ORDER BY a.attempt)
                                     FROM wallet_call_attempts a WHERE a.tenant_id = w.tenant_id AND a.transaction_id = w.transaction_id), '[]'))
             ORDER BY w.seq) AS calls
      FROM wallet_calls w WHERE w.tenant_id = b.tenant_id AND w.bet_id = b.bet_id) c ON true`;

interface Body { tenant_ids: string[]; bet_ids: string[] }

/** The answer text (a named statement: parsed and planned once per connection). */
async function page(body: Body): Promise<string> {
  const { rows } = await db.query<[string]>({ name: 'backoffice_floor', text: FLOOR_SQL, values: [body.tenant_ids, body.bet_ids, body.bet_ids.length], rowMode: 'array' });
  return rows[0]![0];
}

const first = await db.query<{ tenant_id: string; bet_ids: string[] }>(
  'SELECT tenant_id, array_agg(bet_id) AS bet_ids FROM (SELECT tenant_id, bet_id FROM bets ORDER BY tenant_id, created_at, bet_id LIMIT 100) f GROUP BY tenant_id LIMIT 1');
const bare = await page({ tenant_ids: [first.rows[0]!.tenant_id], bet_ids: first.rows[0]!.bet_ids });

const app = Fastify({ logger: false, bodyLimit: 1 << 20 });
app.post('/bets', async (request, reply) => reply.type('application/json').send(await page(request.body as Body)));
app.post('/bare', async (_request, reply) => reply.type('application/json').send(bare));

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ url: address, bare_bytes: Buffer.byteLength(bare) })}\n`);
process.once('SIGTERM', () => void app.close().then(() => db.end()).then(() => process.exit(0)));
