// Reports over placed and uploaded bets at their edges: a placed bet reported after its racing
// day's deadline, a multi-leg bet whose legs disagree, parameters a client may get wrong.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withTransaction } from '../src/db/pool.ts';
import type { Principal } from '../src/modules/auth/tokens.service.ts';
import type { BetRow, LegRow } from '../src/modules/betting/betting.queries.ts';
import { placedBetReport } from '../src/modules/betting/placed-report.ts';
import { buildBet } from './factories/bet-factory.ts';
import { testClock } from './helpers/app.ts';
import { bettingFixture } from './betting-fixture.ts';

const MEETING = 770051;
const clock = testClock();
let f: Awaited<ReturnType<typeof bettingFixture>>;
let uploader: Principal;
let today: string;

before(async () => {
  f = await bettingFixture(MEETING, { clock });
  today = (await f.db.pool.query<{ d: string }>('SELECT meeting_date::text AS d FROM meetings WHERE meeting_id = $1', [MEETING])).rows[0]!.d;
  const client = await f.services.tenants.createClient({ tenantId: f.tenantId, scopes: ['upload'], agencies: ['TAB'] });
  uploader = { clientId: client.client_id, tenantId: f.tenantId, scopes: ['upload'] };
});
after(() => f.close());

async function stored(betId: string): Promise<{ bet: BetRow; legs: LegRow[] }> {
  const bet = (await f.db.pool.query<BetRow>('SELECT * FROM bets WHERE bet_id = $1', [betId])).rows[0]!;
  const legs = (await f.db.pool.query<LegRow>('SELECT * FROM bet_legs WHERE bet_id = $1 ORDER BY leg', [betId])).rows;
  return { bet, legs };
}

test('a placed bet settled days after its racing day stays out of the late-uploads report when the catalogue is imported again', async () => {
  clock.set(new Date());
  const bet = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }],
  });
  assert.equal(bet.status, 'ACCEPTED');
  // Cancelled five days later (a back-office correction), as settlement reports it: in its transaction.
  const { bet: row, legs } = await stored(bet.id);
  const later = new Date(Date.now() + 5 * 86_400_000);
  await withTransaction(f.db.pool, (tx) => f.services.intake.reportPlacedBets(tx, [placedBetReport(row, legs, 'Cancelled', '10.00')], later));
  // Any later import touching that racing day recomputes its deadlines.
  await f.services.catalogue.importMeetings([{ meeting_id: MEETING, date: today, venue: 'Moonee Valley', jurisdiction: 'VIC', code: 'T', races: [] }]);
  const { rows } = await f.db.pool.query('SELECT late FROM reported_bets WHERE bet_id = $1', [bet.id]);
  assert.deepEqual(rows, [{ late: false }], 'a placed bet is written when it happens: never late (docs/reports.md)');
  const late = await f.services.reports.lateUploads(uploader, { from: today, to: today });
  assert.deepEqual(late.rows.filter((r) => r.client_id === 'wagerline'), []);
});

test('a multi whose last leg is received in another currency: its amount is reported in that currency, never added to the first leg\'s', async () => {
  clock.set(new Date());
  const multi = (leg: number, currency: string) => buildBet({
    id: 'CUR-1', type: 'multi', leg, time: new Date().toISOString(), runner_number: leg, status: leg === 1 ? 'Unresulted' : 'Paid',
    amount: 10, payout: 0, net_result: undefined, price: 2, currency,
  });
  await f.services.intake.upload(uploader, 2, { meeting_id: MEETING, race_number: 1, bets: [multi(1, 'AUD')] });
  clock.advance(60_000);
  // The operator's corrected last leg says NZD: the 10 taken is NZ dollars.
  await f.services.intake.upload(uploader, 2, { meeting_id: MEETING, race_number: 2, bets: [multi(2, 'NZD')] });
  const got = await f.services.reports.turnover(uploader, { from: today, to: today, group_by: 'source' });
  const tab = got.rows.filter((r) => r.source === 'TAB').map((r) => [r.currency, r.bets, r.turnover]);
  assert.deepEqual(tab, [['NZD', 1, '10.00']]);
});

test('a placed bet\'s later report wins even from a process whose clock is behind: settled, never left Unresulted', async () => {
  clock.set(new Date());
  const bet = await f.services.betting.placeBet(f.user(randomUUID()), {
    idempotencyKey: randomUUID(), type: 'WIN', stake: 10, legs: [{ meetingId: MEETING, raceNumber: 1, selections: [[1]], price: 3 }],
  });
  const { bet: row, legs } = await stored(bet.id);
  // Settled by another host whose clock is 2 s behind the one that took the bet: its write still
  // comes after the take's (each bet's reports are written in order, under the bet's row lock).
  const behind = new Date(row.updated_at.getTime() - 2000);
  await withTransaction(f.db.pool, (tx) => f.services.intake.reportPlacedBets(tx, [placedBetReport(row, legs, 'Paid', '30.00')], behind));
  const { rows } = await f.db.pool.query('SELECT status, payout::text, revision FROM reported_bets WHERE bet_id = $1', [bet.id]);
  assert.deepEqual(rows, [{ status: 'Paid', payout: '30.000000', revision: 2 }]);
});
